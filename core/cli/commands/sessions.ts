// peerpost sessions list|show|archive: the hosts' sessions, read from their own files; archive runs the
// host's own archive command where it has one (Codex), and is unsupported (read-only) elsewhere.
import { parseAddress } from "../../common/address.js";
import { SESSION_HOSTS, type SessionHost } from "../../records/schemas.js";
import { archiveHostSession, listHostSessions, showHostSession } from "../../sessions/housekeeping.js";
import { WAKERS } from "../../../plugins/wakers.js";
import { defineCommand } from "../command.js";
import { printJson, table } from "../output.js";
import { openStore } from "../store.js";
import { escapeVisible } from "../../security/escape.js";

export const sessionsCommand = defineCommand({
  name: "sessions",
  summary: "list, show or archive the hosts' own sessions",
  usage: "list [--host HOST] | show ADDR | archive ADDR",
  details:
    "Reads each host's session files (Claude Code, Codex, Copilot CLI, Grok); peerpost writes no database of its own. archive runs the host's own command: `codex archive <id>` for Codex; " +
    "Claude Code, Copilot CLI and Grok have no archive, so there it answers unsupported. A running session is never archived.",
  flags: { host: { type: "string", value: "HOST", help: "list: only this host's sessions.", choices: SESSION_HOSTS, actions: ["list"] } },
  args: { min: 1, max: 2, name: "list, show ADDR or archive ADDR", complete: ["list", "show", "archive"] },
  examples: ["peerpost sessions list --host codex", "peerpost sessions show codex:0199a2f3-…", "peerpost sessions archive codex:0199a2f3-…"],
  async run({ flags, args, json, usageError }) {
    const [action, target] = args as [string, string | undefined];
    if (action === "list") {
      if (target !== undefined) throw usageError("list takes no address (use show ADDR)");
      const peerpost = await openStore();
      const rows = listHostSessions(peerpost, WAKERS, flags.host as SessionHost | undefined);
      if (json) printJson({ ok: true, sessions: rows });
      else if (rows.length === 0) process.stdout.write("no sessions in the hosts' files\n");
      else process.stdout.write(table([["ADDRESS", "HOST", "LAST ACTIVITY", "RUNNING", "ARCHIVE", "CWD", "TITLE"], ...rows.map((row) => [row.address, row.host, row.lastActivity, row.alive ? "yes" : "no", row.archive, row.cwd ?? "", row.title ?? ""])]));
      return 0;
    }
    if (action !== "show" && action !== "archive") throw usageError(`needs list, show ADDR or archive ADDR, not ${JSON.stringify(action)}`);
    if (target === undefined) throw usageError(`${action} needs the session's address`);
    const address = parseAddress(target, "ADDR").text;
    const peerpost = await openStore();
    if (action === "show") {
      const row = showHostSession(peerpost, WAKERS, address);
      if (json) printJson({ ok: true, session: row });
      else process.stdout.write(Object.entries(row).map(([key, value]) => `${key.padEnd(13)}${escapeVisible(String(value))}`).join("\n") + "\n");
      return 0;
    }
    const archived = await archiveHostSession(peerpost, WAKERS, address);
    if (json) printJson({ ok: true, ...archived });
    else process.stdout.write(`archived ${address} (${archived.command.join(" ")})\n`);
    return 0;
  },
});
