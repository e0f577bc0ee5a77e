// Copilot CLI run headless for peerpost (verified with 1.0.102, see README.md): `copilot -p <prompt>
// --resume=<id> --allow-tool=peerpost`, which allows exactly the peerpost server's tools.
import type { Waker } from "../../core/wake/waker.js";
import { isCopilotProcess } from "../shared/host-processes.js";

export const copilotWaker: Waker = {
  host: "copilot",
  binary: "copilot",
  isHostProcess: isCopilotProcess,
  resume: ({ sessionId, prompt }) => ({ command: "copilot", args: ["-p", prompt, `--resume=${sessionId}`, "--allow-tool=peerpost"] }),
  // --additional-mcp-config (highest precedence) names the server "peerpost", so --allow-tool=peerpost covers it.
  launch: ({ sessionId, prompt, server }) => ({
    command: "copilot",
    args: ["-p", prompt, `--session-id=${sessionId}`, "--allow-tool=peerpost", "--additional-mcp-config", JSON.stringify({ mcpServers: { peerpost: { type: "local", ...server, tools: ["*"] } } })],
  }),
};
