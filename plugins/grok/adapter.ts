// xAI Grok Build CLI: the session id is GROK_SESSION_ID in the server's environment. Grok 1.0.41 runs no
// hook a plugin ships, so nothing announces new mail: the server's instructions, which Grok shows the
// model when the server connects, ask the model to look itself.
import { grokInputLine } from "./terminal.js";
import type { HostAdapter } from "../../core/server/adapter.js";
import { identityFromEnv, identityFromRegistry } from "../shared/identity.js";
import { isGrokProcess } from "../shared/host-processes.js";
import { inspectGrok } from "./inspect.js";

export const grokAdapter: HostAdapter = {
  host: "grok",
  sessionHost: "grok",
  isHostProcess: isGrokProcess,
  terminalInputLine: grokInputLine,
  identify: (context) => identityFromEnv(context, "grok", "GROK_SESSION_ID") ?? identityFromRegistry(context, "grok"),
  describe: (context) => ({ grok: inspectGrok(context.env) }),
  instructions:
    "In Grok nothing announces new peer mail, so check it yourself: call peerpost's read tool (use_tool with tool_name peerpost__read) " +
    "at the start of each task and again when you have finished it, before you end your turn.",
};
