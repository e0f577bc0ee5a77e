// peerpost index-run: the detached index build a server starts; peerpost runs it, people do not.
import { indexRunCommand } from "../../upkeep/index-run.js";
import { defineCommand } from "../command.js";

export const indexRunCommandLine = defineCommand({
  name: "index-run",
  summary: "index a mailbox far ahead of its index (started by peerpost itself)",
  usage: "",
  hidden: true,
  flags: {},
  args: { min: 0, max: 0, name: "" },
  examples: [],
  json: false,
  run() {
    return indexRunCommand();
  },
});
