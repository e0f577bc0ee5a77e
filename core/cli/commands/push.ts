// peerpost push [on|off tmux|pty [all|HOST|ADDR]]: typing requests into idle terminal sessions (logic in ../push.ts).
import { SESSION_HOSTS } from "../../records/schemas.js";
import { defineCommand } from "../command.js";
import { pushCommand as push, PUSH_TRANSPORTS } from "../push.js";

export const pushCommand = defineCommand({
  name: "push",
  summary: "type requests into idle terminal sessions (tmux panes, peerpost run): show or set the switch",
  usage: "[on|off tmux|pty [all|HOST|ADDR]]",
  details: "tmux is off by default; pty (sessions started with peerpost run) is on. A request is typed only when the session's turn has ended, its input line is empty, and the request is not stale. See docs/live-delivery-terminal.md.",
  flags: {},
  args: { min: 0, max: 3, name: "on|off, a transport and a target (all, a host or an address)", complete: ["on", "off", ...PUSH_TRANSPORTS, "all", ...SESSION_HOSTS] },
  examples: ["peerpost push", "peerpost push on tmux", "peerpost push on tmux codex", "peerpost push off pty all"],
  run({ args, json }) {
    push(args, json);
    return 0;
  },
});
