// The registry row of `npm run bench`: a send's recipient lookup in a registry of many sessions. Every
// session a host ever started stays registered, so a lookup must cost the same at 2,000 sessions as at
// 10; the baseline is the same lookup in a registry of 10.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const LARGE = 2_000;
const SMALL = 10;
const LOOKUPS = 5_000;

export async function benchRegistry({ root, work, report, openPeerpost }) {
  console.error(`\nregistry: resolving a send's recipient (core/recipients.ts, liveness included) in a registry of ${LARGE} sessions vs one of ${SMALL}; ${LOOKUPS} lookups each after as many warm-ups`);
  const { resolveRecipient } = await import(join(root, ".build/core/recipients.js"));
  /** µs per lookup of one registered address, in a registry of `count` sessions of this live process. */
  const lookup = async (count) => {
    const stateDir = join(work, `registry-${count}`);
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir, HOME: work } });
    for (let i = 0; i < count; i++) await peerpost.sessions.register({ host: "codex", address: `codex:s${i}`, sessionId: `s${i}`, source: "startup", hostPid: process.pid }, { eventual: true });
    const resolveOnce = async () => {
      const recipient = await resolveRecipient(peerpost, "codex:s1");
      if (!recipient.alive) throw new Error("the registered session is not seen as running");
    };
    for (let i = 0; i < LOOKUPS; i++) await resolveOnce();
    const started = process.hrtime.bigint();
    for (let i = 0; i < LOOKUPS; i++) await resolveOnce();
    return Number(process.hrtime.bigint() - started) / 1e3 / LOOKUPS;
  };
  const small = await lookup(SMALL);
  const large = await lookup(LARGE);
  report(`recipient lookup, ${LARGE} sessions, µs`, large, `${SMALL} sessions, µs`, small, "(one entry looked up and copied, not the whole registry)");
}
