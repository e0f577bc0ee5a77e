// Claude Code: the session id comes from the SessionStart hook's registry entry for this host process
// (it follows /clear and resume), else from CLAUDE_CODE_SESSION_ID in the server's environment. Live push:
// the channel when started with --channels for peerpost, else the session's own inbox (inbox/).
import { claudeInputLine } from "./terminal.js";
import type { HostAdapter } from "../../core/server/adapter.js";
import { identityFromEnv, identityFromRegistry } from "../shared/identity.js";
import { isClaudeCodeProcess } from "../shared/host-processes.js";
import { channelsRequested, createChannelPush, CHANNEL_CAPABILITY } from "./channel.js";
import { createInboxPush } from "./inbox/transport.js";

export const claudeCodeAdapter: HostAdapter = {
  host: "claude-code",
  sessionHost: "claude-code",
  isHostProcess: isClaudeCodeProcess,
  terminalInputLine: claudeInputLine,
  identify: (context) => identityFromRegistry(context, "claude-code") ?? identityFromEnv(context, "claude", "CLAUDE_CODE_SESSION_ID"),
  experimentalCapabilities: { [CHANNEL_CAPABILITY]: {} },
  // A session started with --channels for peerpost gets the channel; every other one Claude's own inbox.
  createPush: (server, peerpost, context) => (channelsRequested(context.hostProcess?.command ?? "") ? createChannelPush(server, peerpost, context) : createInboxPush(peerpost, context)),
};
