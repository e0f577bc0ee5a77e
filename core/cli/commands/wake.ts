// peerpost wake [on|off all|HOST|ADDR]: the wake switch (off by default) and the runs so far (logic in ../wake.ts).
import { SESSION_HOSTS } from "../../records/schemas.js";
import { defineCommand } from "../command.js";
import { wakeCommand as wake } from "../wake.js";

export const wakeCommand = defineCommand({
  name: "wake",
  summary: "resume dormant sessions to answer requests: show or set the switch (off by default)",
  usage: "[on|off all|HOST|ADDR]",
  details: "Without arguments: the switch per rule, per session, and the recent runs. A request to a session that is not running wakes it only where the switch is on.",
  flags: {},
  args: { min: 0, max: 2, name: "on|off and a target (all, a host or an address)", complete: ["on", "off", "all", ...SESSION_HOSTS] },
  examples: ["peerpost wake", "peerpost wake on codex", "peerpost wake off all"],
  run({ args, json }) {
    wake(args, json);
    return 0;
  },
});
