// The registry rows of `npm run bench`: a send's recipient lookup in a registry of many sessions, and the
// first lookup of a process that has read nothing yet (a SessionStart hook's check of who holds its
// session). Every session a host ever started stays registered (three records each here), so a lookup
// must cost about the same at 2,000 sessions as at 10; the baseline is the same lookup among 10.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const LARGE = 2_000;
const SMALL = 10;
const LOOKUPS = 5_000;
const FIRST_LOOKUPS = 21;

export async function benchRegistry({ root, work, report, median, openPeerpost }) {
  console.error(`\nregistry: resolving a send's recipient (core/sessions/recipients.ts, liveness included) in a registry of ${LARGE} sessions vs one of ${SMALL}, ${LOOKUPS} lookups each after as many warm-ups; then a new store's first lookup (what a SessionStart hook reads) vs a new store's whole fold of the same registry, median of ${FIRST_LOOKUPS} each, after one that builds the registry's index`);
  const { resolveRecipient } = await import(join(root, ".build/core/sessions/recipients.js"));
  /** A registry of `count` sessions of this live process, three records each (hook, server, resume). */
  const registry = async (count) => {
    const stateDir = join(work, `registry-${count}`);
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    const env = { PEERPOST_HOME: stateDir, HOME: work };
    const peerpost = openPeerpost({ env });
    for (let i = 0; i < count; i++)
      for (const source of ["startup", "server", "resume"]) await peerpost.sessions.register({ host: "codex", address: `codex:s${i}`, sessionId: `s${i}`, source, hostPid: process.pid, cwd: `/home/someone/projects/p${i}` }, { eventual: true });
    return { peerpost, env };
  };
  /** µs per recipient lookup of one registered address. */
  const lookup = async ({ peerpost }) => {
    const resolveOnce = async () => {
      const recipient = await resolveRecipient(peerpost, "codex:s1");
      if (!recipient.alive) throw new Error("the registered session is not seen as running");
    };
    for (let i = 0; i < LOOKUPS; i++) await resolveOnce();
    const started = process.hrtime.bigint();
    for (let i = 0; i < LOOKUPS; i++) await resolveOnce();
    return Number(process.hrtime.bigint() - started) / 1e3 / LOOKUPS;
  };
  /** Median ms of a new store's first lookup of a session not registered yet (a new session's SessionStart), or of its whole fold. */
  const firstLookup = ({ env }, whole) => {
    const times = [];
    for (let i = 0; i <= FIRST_LOOKUPS; i++) {
      const peerpost = openPeerpost({ env });
      const started = process.hrtime.bigint();
      const found = whole ? peerpost.sessions.all().find((entry) => entry.address === `codex:new-${i}`) : peerpost.sessions.get(`codex:new-${i}`);
      if (found !== undefined) throw new Error("an unregistered session was found");
      if (i > 0) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    return median(times);
  };
  const small = await registry(SMALL);
  const large = await registry(LARGE);
  report(`recipient lookup, ${LARGE} sessions, µs`, await lookup(large), `${SMALL} sessions, µs`, await lookup(small), "(one entry looked up and copied, not the whole registry)");
  report(`a new store's first lookup, ${LARGE} sessions, ms`, firstLookup(large, false), "whole fold, ms", firstLookup(large, true), `(registry ${(large.peerpost.sessions.log.identity().size / 1e6).toFixed(1)} MB, read through its per-address index; among ${SMALL} sessions ${firstLookup(small, false).toFixed(2)} ms)`);
}
