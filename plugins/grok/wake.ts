// Grok Build run headless for peerpost (verified with 1.0.41, see README.md): `grok --single <prompt>
// --resume <id>`, allowing exactly peerpost's read and reply (Grok names MCP tools <server>__<tool>).
import type { Waker } from "../../core/wake/waker.js";
import { isGrokProcess } from "../shared/host-processes.js";

const ALLOW = ["--output-format", "streaming-json", "--allow", "peerpost__read", "--allow", "peerpost__reply"];

export const grokWaker: Waker = {
  host: "grok",
  binary: "grok",
  isHostProcess: isGrokProcess,
  resume: ({ sessionId, prompt }) => ({ command: "grok", args: ["--single", prompt, "--resume", sessionId, ...ALLOW] }),
  // Grok takes MCP servers from its config only: a launched session has peerpost's tools through the plugin.
  launch: ({ sessionId, prompt }) => ({ command: "grok", args: ["--single", prompt, "--session-id", sessionId, ...ALLOW] }),
};
