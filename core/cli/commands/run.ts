// peerpost run <claude|codex|copilot|grok> [host args…]: the host's TUI in a terminal peerpost owns, so
// requests can be typed into it when it is idle (logic in ../../live/run.ts).
import { defineCommand } from "../command.js";
import { RUN_HOSTS, runWrapped } from "../../live/run.js";

export const runCommand = defineCommand({
  name: "run",
  summary: "start a host's TUI in a terminal peerpost owns, so requests are typed into it when it is idle",
  usage: "claude|codex|copilot|grok [host args…]",
  details: "Everything after the host's name goes to the host unchanged. The host gets every key and signal, follows the window size, and its exit status is peerpost's. Turn typing off with peerpost push off pty. See docs/live-delivery-terminal.md.",
  flags: {},
  args: { min: 1, max: Number.MAX_SAFE_INTEGER, name: "the host (claude, codex, copilot or grok) and its arguments", complete: Object.keys(RUN_HOSTS) },
  examples: ["peerpost run codex", "peerpost run claude --model sonnet"],
  passThrough: true,
  json: false,
  run({ args, usageError }) {
    const [name, ...rest] = args;
    if (name === undefined || RUN_HOSTS[name] === undefined) throw usageError(`run needs a host: ${Object.keys(RUN_HOSTS).join(", ")}`);
    return runWrapped(name, rest);
  },
});
