// Every host's session-file reader, for entry points to hand to core (which never imports a host).
import type { Discover } from "../core/sessions/discovery.js";
import { discoverClaudeSessions } from "./claude-code/discovery.js";
import { discoverCodexSessions } from "./codex/discovery.js";
import { discoverCopilotSessions } from "./copilot/discovery.js";
import { discoverGrokSessions } from "./grok/discovery.js";

export const discoverAll: Discover = (env) => [discoverClaudeSessions, discoverCodexSessions, discoverCopilotSessions, discoverGrokSessions].flatMap((discover) => discover(env));
