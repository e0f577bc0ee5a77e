// Records and reads shared by the compaction tests of both stores: every receipts page a reader may ask
// for, and a registry whose sessions were seen many times.
import { appendFileSync } from "node:fs";
import type { Peerpost } from "../../core/peerpost.js";

/** Every receipts page a reader may ask for: unfiltered and filtered, walked by cursor in pages of 60. */
export function receiptReads(peerpost: Peerpost): unknown {
  const queries = [{}, { address: "claude:s1" }, { kind: "push" as const }, { address: "claude:s2", kind: "wake" as const }, { since: "2026-01-01T00:00:00.000Z" }, { since: "2025-11-02T03:00:00.000Z" }, { since: "2025-11-02T03:00:00.000Z", address: "claude:s3" }];
  return queries.map((query) => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const page = peerpost.receipts.query({ ...query, limit: 60, cursor });
      ids.push(...page.receipts.map((receipt) => receipt.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return ids;
  });
}

/** A registry of 6 sessions (the claim written by `writeStraight`, by default to the log's file), each seen many times, named once, given roles once, and claimed. */
export async function heartbeats(peerpost: Peerpost, clock: { now: number }, writeStraight = (line: string): unknown => appendFileSync(peerpost.sessions.log.path, line + "\n")): Promise<void> {
  for (let round = 0; round < 40; round++)
    for (let s = 0; s < 6; s++) {
      clock.now += 1000;
      const id = `s${s}`;
      const extra = round === 3 ? { name: `name-${s}` } : round === 5 && s % 2 === 0 ? { roles: ["reviewer"] } : round === 7 ? { cwd: `/work/${s}`, hostPid: 100 + s, hostStart: 5 } : round === 20 && s === 1 ? { title: "a title" } : {};
      await peerpost.sessions.register({ host: "claude-code", address: `claude:${id}`, sessionId: id, source: round === 30 && s === 2 ? "cli" : "server", ...extra }, { eventual: true });
    }
  // A claim: written straight, as a registration from another running host writes it.
  await writeStraight(JSON.stringify({ v: 1, type: "session", at: new Date(clock.now).toISOString(), host: "claude-code", address: "claude:s3", sessionId: "s3", hostPid: 999, writerPid: 1, source: "startup", claimFrom: 103 }));
  clock.now += 1000;
  await peerpost.sessions.register({ host: "claude-code", address: "claude:s4", sessionId: "s4", source: "cli", name: "late-name" });
}

export function sessionReads(peerpost: Peerpost): unknown {
  return peerpost.sessions.all().map((entry) => ({ ...entry, alive: false }));
}

