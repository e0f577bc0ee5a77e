// peerpost agents: the sessions peerpost knows, as a table for people; --all adds ended ones and those
// only the hosts' own session files show.
import { roleState, rolesOf } from "../../roles/roles.js";
import { withHostFiles } from "../../sessions/discovery.js";
import { switchesOrRefusal, wakeSetting } from "../../wake/switches.js";
import { defineCommand } from "../command.js";
import { printJson, table } from "../output.js";
import { openStore } from "../store.js";
import { when } from "../prose.js";
import { nextSteps } from "../next-steps.js";

export const agentsCommand = defineCommand({
  name: "agents",
  summary: "list the sessions peerpost knows (running ones, or --all)",
  usage: "[--all]",
  details: "ADDRESS is what --to takes. MACHINE is where the session runs; RUNNING is ? for other machines (liveness is known only here). LIVE is the running session's live transport (claude-inbox, channel, …; none: mail waits for its hooks and read). NAME is set with `peerpost name`. ROLES come from `peerpost role set` and the PEERPOST_ROLES a session was started with; a role is reached as role:NAME.",
  flags: { all: { type: "boolean", help: "Include sessions that are not running now, and those peerpost has not seen yet (from the hosts' own session files)." } },
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost agents", "peerpost agents --all --json"],
  async run({ flags, json }) {
    const peerpost = await openStore();
    const state = roleState(peerpost);
    // A refused switches file wakes no one (request.ts): listed so.
    const { switches } = switchesOrRefusal(peerpost.stateDir.path);
    const listed = peerpost.sessions.list({ includeDead: Boolean(flags.all) }).map((session) => ({ ...session, roles: rolesOf(state, session), wake: wakeSetting(switches, session).on }));
    const { sessions, unseen } = flags.all ? withHostFiles(peerpost.discover, peerpost.env, listed, peerpost.sessions.all().map((session) => session.address)) : { sessions: listed, unseen: [] };
    if (json) {
      printJson(flags.all ? { ok: true, sessions, unseen } : { ok: true, sessions });
      return 0;
    }
    const now = peerpost.config.now();
    if (sessions.length === 0) {
      const none = peerpost.sessions.list({ includeDead: true }).length === 0;
      process.stdout.write(none ? `no sessions registered yet\n${nextSteps()}` : "no running sessions (--all shows ended ones too)\n");
    }
    else
      process.stdout.write(
        table([
          ["ADDRESS", "NAME", "HOST", "MACHINE", "ROLES", "RUNNING", "LIVE", "WAKE", "LAST SEEN", "CWD", "TITLE"],
          ...sessions.map((session) => [session.address, session.name ?? "", session.host, session.machine ?? "", session.roles.join(","), session.local ? (session.alive ? "yes" : "no") : "?", session.alive ? (session.push ?? "") : "", session.wake ? "on" : "off", when(session.lastSeen, now), session.cwd ?? "", session.title ?? ""]),
        ]),
      );
    if (unseen.length > 0)
      process.stdout.write(
        "\nnot seen by peerpost yet (from the hosts' own session files):\n" +
          table([["ADDRESS", "HOST", "LAST ACTIVITY", "CWD", "TITLE"], ...unseen.map((session) => [session.address, session.host, when(session.lastActivity, now), session.cwd ?? "", session.title ?? ""])]),
      );
    return 0;
  },
});
