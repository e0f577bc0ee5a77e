// Live push into a Claude Code session through its channels: a `notifications/claude/channel` whose
// content is the peerpost envelope. Claude Code only listens when started with
// `--channels plugin:peerpost@peerpost` (a research preview that also needs a claude.ai login), so the
// transport is available only when the host process was started that way; otherwise mail waits for
// `read` and the hooks.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Peerpost } from "../../core/peerpost.js";
import type { IdentityContext } from "../../core/server/adapter.js";
import type { PushTransport } from "../../core/server/adapter.js";

export const CHANNEL_CAPABILITY = "claude/channel";
export const CHANNEL_METHOD = "notifications/claude/channel";

/** True when the Claude Code command line asks for peerpost's channel. */
export function channelsRequested(command: string): boolean {
  return /(^|\s)--channels(\s|=)/.test(command) && /(plugin:peerpost@[A-Za-z0-9._-]+|server:peerpost)(\s|$)/.test(command);
}

export function createChannelPush(server: Server, _peerpost: Peerpost, context: IdentityContext): PushTransport {
  const requested = channelsRequested(context.hostProcess?.command ?? "");
  const notify = (content: string, meta: Record<string, string>) => server.notification({ method: CHANNEL_METHOD, params: { content, meta } });
  return {
    name: "channel",
    availability: () =>
      requested
        ? { available: true, reason: "Claude Code was started with --channels for peerpost" }
        : { available: false, reason: "Claude Code was not started with --channels plugin:peerpost@peerpost; new mail waits for read and the prompt hook" },
    deliver: (message, content) => notify(content, { message_id: message.id, from: message.from, anticipation: message.anticipation }),
    remind: (note) => notify(note, { kind: "reminder" }),
  };
}
