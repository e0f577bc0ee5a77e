// The live transports of one session's server: the host's own protocol first, then the tmux pane its
// TUI runs in (where the host's input line can be read).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Peerpost } from "../peerpost.js";
import type { HostAdapter, IdentityContext, PushTransport } from "../server/adapter.js";
import { liveTransport } from "./choose.js";
import { paneOf, TmuxPush } from "./tmux.js";
import { processEnvironment } from "../wake/host-env.js";

export function liveTransports(adapter: HostAdapter, server: Server, peerpost: Peerpost, context: IdentityContext): PushTransport | undefined {
  const own = adapter.createPush?.(server, peerpost, context);
  const hostPid = context.hostProcess?.pid;
  const pane = hostPid === undefined ? undefined : paneOf(processEnvironment(hostPid) ?? {});
  const typing = pane && hostPid !== undefined && adapter.sessionHost && adapter.terminalInputLine ? new TmuxPush(peerpost, adapter.sessionHost, pane, adapter.terminalInputLine, hostPid) : undefined;
  return liveTransport([own, typing]);
}
