// What the push a session's registry entry names says about who delivers to it: a terminal's typing (tmux,
// from the session's own server; pty, from a `peerpost run` wrapper around its host), the host's own
// protocol (Claude Code's inbox, a channel, the Codex app-server, a shim), or none.

/** The transports that type into a terminal. */
export const TERMINAL_VIAS = ["tmux", "pty"] as const;
/** The push `peerpost run` reports for the session it wraps. */
export const PTY_VIA = "pty" as const;

/** A push through the host's own protocol: not a terminal's typing, not none. */
export function isHostProtocol(push: string | undefined): push is string {
  return push !== undefined && push !== "none" && !(TERMINAL_VIAS as readonly string[]).includes(push);
}
