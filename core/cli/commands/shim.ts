// peerpost shim codex|grok|copilot [args…]: what an editor runs in place of the host CLI (logic in ../shim.ts).
import { defineCommand } from "../command.js";
import { runShim } from "../shim.js";
import { realHostBinary, SHIMS } from "../../../plugins/shims.js";

export const shimCommand = defineCommand({
  name: "shim",
  summary: "stand in for a host CLI in an editor: requests to its sessions arrive as turns when idle",
  usage: "codex|grok|copilot [HOST ARGS…]",
  details:
    "Point the editor's setting for the host's executable at a script that runs `peerpost shim <host> \"$@\"` (see docs/live-delivery-editors.md). " +
    "In the host's stdio protocol mode (codex app-server, grok agent stdio, copilot --acp) every byte passes through and a request to one of the editor's sessions starts a turn there when the session is idle; " +
    "any other invocation runs the host as is. If peerpost fails, the host still runs. PEERPOST_PUSH=off turns the turns off.",
  flags: {},
  args: { min: 1, max: Number.MAX_SAFE_INTEGER, name: "the host and its arguments", complete: Object.keys(SHIMS) },
  examples: ["peerpost shim codex app-server", "peerpost shim grok agent stdio", "peerpost shim copilot --acp"],
  json: false,
  passThrough: true,
  run({ args, usageError }) {
    const [host, ...rest] = args;
    const dialect = SHIMS[host ?? ""];
    if (dialect === undefined) throw usageError(`knows codex, grok and copilot, not ${JSON.stringify(host)}`);
    return runShim(dialect, realHostBinary(dialect.binary, process.env), rest);
  },
});
