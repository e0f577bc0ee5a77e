// The receipts rows of `npm run bench`: the receipts log only grows (a record per send, reply, push, wake
// and launch), so a page of receipts and health's count of their corrupt lines must cost about the same at
// 200,000 receipts as at 1,000; the baseline is the same call on 1,000. Reading the large log whole is
// printed beside them for scale.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const LARGE = 200_000;
const SMALL = 1_000;
const CALLS = 21;
const ADDRESSES = 200;
/** An address with one receipt in 10,000: a page of its receipts read back would cross most of the log. */
const RARE = "claude:rare";

/** `count` receipt lines as peerpost writes them, one of each 10,000 from or to RARE. */
function receiptLog(path, count) {
  const lines = [];
  const start = Date.parse("2026-06-01T00:00:00.000Z");
  for (let i = 0; i < count; i++) {
    const id = `01J${String(i).padStart(10, "0")}${"0".repeat(13)}`;
    const from = i % 10_000 === 500 ? RARE : `codex:agent-${i % ADDRESSES}`;
    lines.push(JSON.stringify({ v: 1, type: "receipt", id, kind: i % 10 === 0 ? "reply" : "send", at: new Date(start + i * 1000).toISOString(), host: "codex", from, to: `claude:agent-${(i * 7) % ADDRESSES}`, messageId: id, delivery: "queued", warnings: [], origin: { source: "host", pid: 4242, cwd: "/home/someone/projects/p" } }));
  }
  writeFileSync(path, lines.join("\n") + "\n", { mode: 0o600 });
}

export async function benchReceipts({ work, report, median, openPeerpost }) {
  console.error(`\nreceipts: the newest page (50), a page of an address with one receipt in 10,000, and health's count of the receipts' corrupt lines, on ${LARGE} receipts vs ${SMALL}; median of ${CALLS} calls each, after one that builds the receipts' index`);
  const store = (count) => {
    const stateDir = join(work, `receipts-${count}`);
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    receiptLog(join(stateDir, "receipts.jsonl"), count);
    const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir, HOME: work } });
    const started = process.hrtime.bigint();
    peerpost.receipts.indexAll();
    return { peerpost, indexMs: Number(process.hrtime.bigint() - started) / 1e6 };
  };
  /** Median ms of `call` on a store, after one call. */
  const time = ({ peerpost }, call) => {
    const times = [];
    for (let i = 0; i <= CALLS; i++) {
      const started = process.hrtime.bigint();
      call(peerpost);
      if (i > 0) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    return median(times);
  };
  const newest = (peerpost) => {
    if (peerpost.receipts.query({}).receipts.length !== 50) throw new Error("the newest page is not full");
  };
  const rare = (peerpost) => {
    if (peerpost.receipts.query({ address: RARE }).receipts.length === 0) throw new Error("the rare address's receipts were not found");
  };
  const corrupt = (peerpost) => {
    if (peerpost.receipts.corruptLines().count !== 0) throw new Error("corrupt lines in a generated log");
  };
  const small = store(SMALL);
  const large = store(LARGE);
  const whole = time(large, (peerpost) => peerpost.receipts.log.scan(0, () => undefined));
  const scale = `(${(large.peerpost.receipts.log.identity().size / 1e6).toFixed(0)} MB; reading it whole: ${whole.toFixed(0)} ms)`;
  report(`receipts, newest page, ${LARGE} receipts, ms`, time(large, newest), `${SMALL} receipts, ms`, time(small, newest), `${scale} read back from the end`);
  report(`receipts, one rare address's page, ${LARGE} receipts, ms`, time(large, rare), `${SMALL} receipts, ms`, time(small, rare), `through the receipts' index (built once in ${(large.indexMs / 1000).toFixed(1)} s)`);
  report(`health, receipts' corrupt lines, ${LARGE} receipts, ms`, time(large, corrupt), `${SMALL} receipts, ms`, time(small, corrupt), "(the index's count and the lines past it)");
}
