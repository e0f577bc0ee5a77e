// peerpost resolve QUERY: sessions matching what a person calls them, ranked with reasons, never picked.
import { findSessions } from "../../sessions/resolve.js";
import { defineCommand } from "../command.js";
import { printJson, table } from "../output.js";
import { openStore } from "../store.js";

export const resolveCommand = defineCommand({
  name: "resolve",
  summary: "find sessions by name, working dir, title, host or id prefix, ranked with reasons",
  usage: "QUERY",
  details: "It never picks one: send to the address you mean with --to.",
  flags: {},
  args: { min: 1, max: Infinity, name: "a query, e.g. api" },
  examples: ["peerpost resolve api server", "peerpost resolve codex --json"],
  async run({ args, json }) {
    const query = args.join(" ");
    const candidates = findSessions(await openStore(), query);
    if (json) {
      printJson({ ok: true, query, candidates });
      return 0;
    }
    if (candidates.length === 0) process.stdout.write("no session matches (peerpost agents --all lists them all)\n");
    else process.stdout.write(table([["SCORE", "ADDRESS", "NAME", "WHY"], ...candidates.map((candidate) => [String(candidate.score), candidate.address, candidate.name ?? "", candidate.reasons.join("; ")])]));
    return 0;
  },
});
