// `peerpost name ADDR NAME` and `peerpost resolve QUERY`: name a session, and find sessions by what a
// person calls them (ranked with reasons, never picked).
import { openPeerpost } from "../peerpost.js";
import { nameSession } from "../names.js";
import { findSessions } from "../resolve.js";
import { discoverAll } from "../../plugins/discovery.js";
import { printJson, table, UsageError } from "./output.js";

export async function name(args: string[], json: boolean): Promise<void> {
  const [address, ...words] = args;
  if (!address || words.length === 0) throw new UsageError("name needs an address and a name, e.g. peerpost name codex:abc api-server");
  const entry = await nameSession(openPeerpost({}), address, words.join(" "));
  if (json) printJson({ ok: true, session: entry });
  else process.stdout.write(`${entry.address} is now named ${JSON.stringify(entry.name)}\n`);
}

export function resolve(args: string[], json: boolean): void {
  if (args.length === 0) throw new UsageError("resolve needs a query, e.g. peerpost resolve api");
  const candidates = findSessions(openPeerpost({ discover: discoverAll }), args.join(" "));
  if (json) {
    printJson({ ok: true, query: args.join(" "), candidates });
    return;
  }
  if (candidates.length === 0) process.stdout.write("no session matches (peerpost agents --all lists them all)\n");
  else process.stdout.write(table([["SCORE", "ADDRESS", "NAME", "WHY"], ...candidates.map((c) => [String(c.score), c.address, c.name ?? "", c.reasons.join("; ")])]));
}
