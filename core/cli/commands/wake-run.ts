// peerpost wake-run CLAIM: the detached runner a wake starts; peerpost runs it, people do not.
import { wakeRunCommand } from "../../wake/main.js";
import { wakeDeps } from "../../../plugins/wakers.js";
import { defineCommand } from "../command.js";

export const wakeRunCommandLine = defineCommand({
  name: "wake-run",
  summary: "run one claimed wake (started by peerpost itself)",
  usage: "CLAIM",
  hidden: true,
  flags: {},
  args: { min: 0, max: 1, name: "the claim id" },
  examples: [],
  json: false,
  run({ args }) {
    return wakeRunCommand(args[0], wakeDeps());
  },
});
