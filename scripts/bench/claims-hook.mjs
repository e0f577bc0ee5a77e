// The edit-hook rows of `npm run bench`: Claude Code's PreToolUse hook (whole process) checking a Write
// against 1,000 live claims in the repository, one of which refuses it, vs bare `node -e 0`; then the
// same with 100,000 claims claimed and released before them in the log, and again once a compaction
// (30 days later) moved those to the archive, with the live log's size after it vs before. Target ≤ 1.3×.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const CLAIMS = 1_000;
const PER_HOLDER = 100;
const RELEASED = 100_000;
/** Released claims are appended in batches of this many claim + release pairs. */
const BATCH = 1_000;

/** 1,000 live claims of ten people, `pkg0/**` … `pkg999/**`, after `released` claims each claimed and released. */
async function prepare({ root, work, openPeerpost }, name, released) {
  const { claimPaths } = await import(join(root, ".build/core/claims/claims.js"));
  const { idFactory } = await import(join(root, ".build/core/common/ids.js"));
  const home = join(work, `${name}-home`);
  const repo = join(work, `${name}-repo`);
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home };
  const peerpost = openPeerpost({ env, home });
  const newId = await idFactory();
  for (let start = 0; start < released; start += BATCH) {
    const items = [];
    for (let i = start; i < Math.min(released, start + BATCH); i++) {
      const at = new Date().toISOString();
      const holder = `user:r${i % 50}`;
      const paths = [`old/f${i}.ts`];
      items.push({ record: { v: 1, type: "claim", id: newId(), holder, repo, paths, shared: false, at, until: new Date(Date.now() + 3_600_000).toISOString() }, scopes: ["claims"] });
      items.push({ record: { v: 1, type: "release", id: newId(), holder, repo, paths, why: "released", by: holder, at }, scopes: ["claims"] });
    }
    await peerpost.mailbox.store.append(items);
  }
  for (let holder = 0; holder < CLAIMS / PER_HOLDER; holder++) {
    const paths = Array.from({ length: PER_HOLDER }, (_, i) => `pkg${holder * PER_HOLDER + i}/**`);
    await claimPaths(peerpost, { holder: `user:p${holder}`, cwd: repo, paths, ttl: "1d" });
  }
  await peerpost.backend.close();
  return { env, repo };
}

/** The hook timed against bare node, interleaved, with its median reported as one row. */
function measure(context, { env, input, label }) {
  const { root, runs, report, median, timeProcess } = context;
  const hook = join(root, "dist/claude-code/hooks.cjs");
  const check = (run) => {
    if (!run.stdout.includes("claimed exclusively by user:p5")) throw new Error(`the hook did not refuse the claimed path: ${run.stdout}`);
  };
  // Not counted: the first hook (the claim tool's own fold has saved the claims' snapshot by then, after the history).
  const first = timeProcess(process.execPath, [hook, "pre-tool"], { input, env });
  check(first);
  const base = [];
  const hooked = [];
  const rss = [];
  for (let i = 0; i < runs; i++) {
    base.push(timeProcess(process.execPath, ["-e", "0"], { env }).elapsed);
    const run = timeProcess(process.execPath, [hook, "pre-tool"], { input, env });
    check(run);
    hooked.push(run.elapsed);
    rss.push(run.rss);
  }
  report(`PreToolUse hook, ${label}, median ms`, median(hooked), "node -e 0 median ms", median(base), `(target ≤ 1.3×; refuses the edit; peak RSS ${median(rss)} KiB)`);
}

/**
 * The history compacted 30 days and 2 hours later, when every released claim is older than the retention
 * and the live claims (a day's TTL) still stand: the live log's size after vs before.
 */
async function compactHistory({ openPeerpost, report }, env) {
  const later = Date.now() + 30 * 86_400_000 + 2 * 3_600_000;
  const peerpost = openPeerpost({ env, home: env.HOME, now: () => later });
  const result = await peerpost.mailbox.compact();
  await peerpost.backend.close();
  report("live mailbox after compaction, bytes", result.liveBytesAfter, "before, bytes", result.liveBytesBefore, `(${result.movedClaimLines} claim and release lines moved; the live claims stay)`);
}

async function row(context, { name, released, label }) {
  const started = Date.now();
  const { env, repo } = await prepare(context, name, released);
  const input = JSON.stringify({ session_id: "bench-editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(repo, "pkg500", "x.ts"), content: "x" } });
  console.error(`  ${label}: log written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  measure(context, { env, input, label });
  if (released === 0) return;
  await compactHistory(context, env);
  measure(context, { env, input, label: `${label}, compacted` });
}

export async function benchClaimsHook(context) {
  console.error(`\nPreToolUse hook (claude-code), whole process, ${CLAIMS} live claims in the repository, vs bare node -e 0 (${context.runs} runs each, interleaved)`);
  await row(context, { name: "claims", released: 0, label: `${CLAIMS} claims` });
  await row(context, { name: "claims-history", released: RELEASED, label: `${CLAIMS} claims after ${RELEASED} released` });
}
