// Grok Build run headless for peerpost (verified with 1.0.41, see README.md): `grok --single <prompt>
// --resume <id>`, allowing exactly peerpost's read and reply (Grok names MCP tools <server>__<tool>).
import type { Waker } from "../../core/wake/waker.js";

export const grokWaker: Waker = {
  host: "grok",
  resume: ({ sessionId, prompt }) => ({ command: "grok", args: ["--single", prompt, "--resume", sessionId, "--output-format", "streaming-json", "--allow", "peerpost__read", "--allow", "peerpost__reply"] }),
};
