// The catch-up row of `npm run bench`: a session's view brought up to date over a stretch of other
// addresses' mail (what a send folds first under contention, and a prompt hook after a busy hour). Its
// view passes over those lines unparsed; the baseline is a view of everything, which parses each one.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { generateMailbox } from "./mailbox-generator.mjs";

const MESSAGES = 20_000;
const ROUNDS = 9;

export async function benchCatchUp({ root, work, report, median, openPeerpost }) {
  console.error(`\ncatch-up: a session's view brought up over ${MESSAGES} messages of other addresses (each with its read and resolution), vs a view of everything over the same lines; ${ROUNDS} interleaved rounds, medians`);
  const stateDir = join(work, "catch-up");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const address = "claude:bench-me";
  const { bytes } = generateMailbox(join(stateDir, "mailbox.jsonl"), { messages: MESSAGES, pendingFor: address });
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir, HOME: work } });
  const { MailboxView } = await import(join(root, ".build/core/mail/view.js"));
  /** Milliseconds to fold the log into a new view of `scope` (no snapshot, no index: every line is read). */
  const fold = (scope) => {
    const view = new MailboxView(peerpost.mailbox.log, scope, undefined);
    const started = process.hrtime.bigint();
    view.refresh();
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    if (scope !== undefined && Object.keys(view.state.messages).length !== 1) throw new Error("the session's view does not hold exactly its one message");
    return elapsed;
  };
  const own = [];
  const everything = [];
  for (let i = 0; i < ROUNDS; i++) {
    own.push(fold(address));
    everything.push(fold(undefined));
  }
  report(`session view over ${MESSAGES} others' messages, ms`, median(own), "view of everything, ms", median(everything), `(${(bytes / 1e6).toFixed(1)} MB; others' lines passed over unparsed)`);
}
