// peerpost hooks install|uninstall grok: user-level hooks for a host that ignores a plugin's own (logic in ../hooks.ts).
import { defineCommand } from "../command.js";
import { hooksCommand as hooks } from "../hooks.js";

export const hooksCommand = defineCommand({
  name: "hooks",
  summary: "install or remove user-level hooks for Grok (it ignores a plugin's hooks)",
  usage: "install|uninstall grok",
  flags: {},
  args: { min: 2, max: 2, name: "install|uninstall and the host (grok)", complete: ["install", "uninstall", "grok"] },
  examples: ["peerpost hooks install grok", "peerpost hooks uninstall grok"],
  run({ args, json }) {
    hooks(args, json);
    return 0;
  },
});
