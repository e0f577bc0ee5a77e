// peerpost launch: start a helper session with a first message, or set the launch switch (logic in ../launch.ts).
import { SESSION_HOSTS } from "../../records/schemas.js";
import { wakeDeps } from "../../../plugins/wakers.js";
import { defineCommand } from "../command.js";
import { launchCommand as launch } from "../launch.js";

export const launchCommand = defineCommand({
  name: "launch",
  summary: "start a helper session with a first message (or turn launching on|off)",
  usage: "--host HOST --cwd DIR [--model M] [--effort E] [--from ADDR] TEXT | on | off",
  details: "Launching is off by default (`peerpost launch on`). Prints the new session's address and the message id to follow with `peerpost status`.",
  flags: {
    host: { type: "string", value: "HOST", help: "Which host CLI runs the helper.", choices: SESSION_HOSTS },
    cwd: { type: "string", value: "DIR", help: "The helper's working dir.", complete: "file" },
    model: { type: "string", value: "M", help: "The helper's model, through the host's own flag (default: the host's)." },
    effort: { type: "string", value: "E", help: "The helper's reasoning effort, through the host's own flag (default: the host's)." },
    from: { type: "string", value: "ADDR", help: "The address the answer goes to.", default: "user:<PEERPOST_USER, else your login name>", complete: "address" },
  },
  args: { min: 1, max: Infinity, name: "the message text, or on|off" },
  examples: ["peerpost launch on", "peerpost launch --host claude-code --cwd ~/src/api --from user:me 'Run the tests and report'", "peerpost launch --host codex --cwd ~/src/api --model gpt-5.4 --effort high 'Review the diff'"],
  async run({ flags, args, json, usageError }) {
    // The flags are a launch's: the switch reads none of them, and would drop them without a word.
    // Only the launch's own flags: --json (every command's) is read by the switch too.
    const given = Object.keys(launchCommand.flags).filter((name) => flags[name as keyof typeof flags] !== undefined);
    if ((args[0] === "on" || args[0] === "off") && args.length === 1 && given.length > 0) throw usageError(`--${given[0]} is for a launch, not launch ${args[0]}`);
    await launch(args, flags, json, wakeDeps());
    return 0;
  },
});
