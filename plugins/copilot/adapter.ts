// GitHub Copilot CLI: the session id is COPILOT_AGENT_SESSION_ID in the server's environment.
import { copilotInputLine } from "./terminal.js";
import type { HostAdapter } from "../../core/server/adapter.js";
import { identityFromEnv, identityFromRegistry } from "../shared/identity.js";
import { isCopilotProcess } from "../shared/host-processes.js";
import { inspectCopilot } from "./inspect.js";

export const copilotAdapter: HostAdapter = {
  host: "copilot",
  sessionHost: "copilot",
  isHostProcess: isCopilotProcess,
  terminalInputLine: copilotInputLine,
  identify: (context) => identityFromEnv(context, "copilot", "COPILOT_AGENT_SESSION_ID") ?? identityFromRegistry(context, "copilot"),
  describe: (context) => ({ copilot: inspectCopilot(context.env) }),
};
