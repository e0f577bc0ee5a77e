// npm run bench: peerpost's speed and memory, each as a ratio to a baseline measured in the same run.
//   node scripts/bench.mjs [--only append,catchup,registry,receipts,logs,mcp,inbox,hook,claimshook,server,ui,uibig,newsession,compact,rss,postgres,shim,live,claude-inbox] [--sizes 100000] [--big] [--runs 21]
// --big adds the 1M-message rows (inbox, hook, new sessions, compaction): several minutes and ~1 GB of temp files.
// Results go to stdout as a table; nothing here is a pass/fail test.
import { spawnSync } from "node:child_process";
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateMailbox } from "./bench/mailbox-generator.mjs";
import { benchCompaction, benchMcpSends, benchNewSessions, benchServerRss } from "./bench/storage.mjs";
import { benchGroupCommit } from "./bench/group-commit.mjs";
import { benchCatchUp } from "./bench/catch-up.mjs";
import { benchRegistry } from "./bench/registry.mjs";
import { benchReceipts } from "./bench/receipts.mjs";
import { benchLogs } from "./bench/logs.mjs";
import { benchPostgres } from "./bench/postgres.mjs";
import { benchShim } from "./bench/shim.mjs";
import { benchLiveTyping } from "./bench/live-typing.mjs";
import { benchLiveClaude } from "./bench/live-claude.mjs";
import { benchClaimsHook } from "./bench/claims-hook.mjs";
import { benchUi, benchUiScale } from "./bench/ui-scale.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
};
const only = new Set(option("only", "append,catchup,registry,receipts,logs,mcp,inbox,hook,claimshook,server,uibig,newsession,compact,rss,shim,live,claude-inbox").split(","));
const sizes = option("sizes", args.includes("--big") ? "100000,1000000" : "100000").split(",").map(Number);
const runs = Number(option("runs", "21"));
const work = mkdtempSync(join(tmpdir(), "peerpost-bench-"));
const results = [];

spawnSync(process.execPath, [join(root, "scripts/transpile.mjs")], { stdio: "inherit" });
const { openPeerpost } = await import(join(root, ".build/core/peerpost.js"));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];
const ms = (value) => `${value.toFixed(1)} ms`;
/** Two significant digits, so a tiny ratio (a warm read against a cold fold) does not print as 0.00. */
const formatRatio = (ratio) => (ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2));
function report(name, value, baselineName, baseline, extra = "") {
  results.push({ name, value, baselineName, baseline, ratio: value / baseline, extra });
  console.error(`  ${name}: ${value.toFixed(2)} vs ${baselineName} ${baseline.toFixed(2)} → ${formatRatio(value / baseline)}× ${extra}`);
}

/**
 * A FIFO holding `input` for a child's stdin, as Codex, Copilot CLI and Grok give their hooks a pipe
 * (spawnSync's `input` is a socket, as Claude Code gives). Kept open for writing: like a host, it never
 * sends end-of-file, so the hook must stop at the end of the JSON.
 */
function pipeHolding(input) {
  const path = join(work, `stdin-${process.hrtime.bigint()}.fifo`);
  spawnSync("mkfifo", [path]);
  const writer = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  writeSync(writer, input);
  return { reader, close: () => [reader, writer].forEach((fd) => closeSync(fd)) };
}

/** Wall time of a whole process, and its peak RSS (KiB) where /usr/bin/time exists. `pipe`: stdin is a FIFO, not a socket. */
function timeProcess(command, commandArgs, { input, env, pipe = false } = {}) {
  const useTime = existsSync("/usr/bin/time");
  const fifo = pipe ? pipeHolding(input) : undefined;
  const io = fifo ? { stdio: [fifo.reader, "pipe", "pipe"] } : { input };
  const started = process.hrtime.bigint();
  const result = useTime
    ? spawnSync("/usr/bin/time", ["-f", "%M", command, ...commandArgs], { ...io, env, encoding: "utf8" })
    : spawnSync(command, commandArgs, { ...io, env, encoding: "utf8" });
  fifo?.close();
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  const rss = useTime ? Number(result.stderr.trim().split("\n").pop()) : NaN;
  return { elapsed, rss, stdout: result.stdout, status: result.status };
}

function prepareMailbox(size) {
  const home = join(work, `home-${size}`);
  const stateDir = join(home, ".peerpost");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const address = "claude:bench-me";
  const started = Date.now();
  const { bytes } = generateMailbox(join(stateDir, "mailbox.jsonl"), { messages: size, pendingFor: address });
  console.error(`  generated ${size} messages (${(bytes / 1e6).toFixed(0)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { home, stateDir, address };
}

async function benchInbox(size, mailbox) {
  console.error(`\ninbox(): ${size}-message mailbox, warm snapshot vs cold full fold`);
  const env = { ...process.env, PEERPOST_HOME: mailbox.stateDir, HOME: work };
  rmSync(join(mailbox.stateDir, "cache"), { recursive: true, force: true });
  const coldStart = process.hrtime.bigint();
  const cold = openPeerpost({ env });
  const coldInbox = cold.mailbox.inbox(mailbox.address);
  const coldMs = Number(process.hrtime.bigint() - coldStart) / 1e6;
  await cold.mailbox.persist(cold.mailbox.view(mailbox.address));
  const warmTimes = [];
  for (let i = 0; i < 9; i++) {
    const start = process.hrtime.bigint();
    const warm = openPeerpost({ env });
    const inbox = warm.mailbox.inbox(mailbox.address);
    warmTimes.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (inbox.length !== coldInbox.length) throw new Error("warm and cold inboxes differ");
  }
  report(`inbox() ${size} warm ms`, median(warmTimes), "cold full fold ms", coldMs, `(${coldInbox.length} pending; RSS now ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB)`);
}

async function benchHook(size, mailbox) {
  console.error(`\nUserPromptSubmit hook, whole process, ${size}-message mailbox, 1 pending, vs bare node -e 0 (${runs} runs each, interleaved)`);
  const hook = join(root, "dist/claude-code/hooks.cjs");
  // The default configuration: the state dir is ~/.peerpost (HOME is the bench's own temp dir).
  const env = { PATH: process.env.PATH, HOME: mailbox.home };
  const input = JSON.stringify({ session_id: "bench-me", hook_event_name: "UserPromptSubmit", prompt: "hi" });
  // Warm the snapshot once, as the session's first prompt or its server would. In-process: a hook gives up
  // after 5 s, and a generated log the index never saw takes a full fold (the cold row below).
  const warmer = openPeerpost({ env: { ...env, PEERPOST_HOME: mailbox.stateDir }, home: mailbox.home });
  await warmer.mailbox.persist(warmer.mailbox.view(mailbox.address));
  const first = timeProcess(process.execPath, [hook, "user-prompt"], { input, env });
  if (!first.stdout.includes("1 new message")) throw new Error(`the hook did not flag the pending message: ${first.stdout}`);
  const base = [];
  const warm = [];
  const piped = [];
  const rss = [];
  const emptyScript = join(work, "empty.cjs");
  writeFileSync(emptyScript, "");
  const baseFile = [];
  for (let i = 0; i < runs; i++) {
    // The baselines get the hook's environment too: variables such as NODE_EXTRA_CA_CERTS change node's start-up.
    base.push(timeProcess(process.execPath, ["-e", "0"], { env }).elapsed);
    baseFile.push(timeProcess(process.execPath, [emptyScript], { env }).elapsed);
    const run = timeProcess(process.execPath, [hook, "user-prompt"], { input, env });
    if (!run.stdout.includes("1 new message")) throw new Error("a warm run did not flag the pending message");
    warm.push(run.elapsed);
    rss.push(run.rss);
    const viaPipe = timeProcess(process.execPath, [hook, "user-prompt"], { input, env, pipe: true });
    if (!viaPipe.stdout.includes("1 new message")) throw new Error("a run fed by a pipe did not flag the pending message");
    piped.push(viaPipe.elapsed);
  }
  report(`hook ${size} warm median ms`, median(warm), "node -e 0 median ms", median(base), `(stdin a socket, as Claude Code gives; peak RSS ${median(rss)} KiB; node on an empty .cjs file: ${ms(median(baseFile))})`);
  report(`hook ${size} warm, stdin a pipe, median ms`, median(piped), "node -e 0 median ms", median(base), "(as Codex, Copilot CLI and Grok give)");
  // Cold: the session's snapshot gone. A hook never folds a generated log the index never saw (it starts
  // the index build and stays silent), so the index is built first, as that build or a server's would.
  warmer.mailbox.indexAll();
  const coldRuns = size >= 1_000_000 ? 3 : 5;
  const cold = [];
  const coldRss = [];
  for (let i = 0; i < coldRuns; i++) {
    // The views' snapshots only: the compiled hook program (cache/code) stays, as it does on a machine where hooks ran before.
    for (const name of readdirSync(join(mailbox.stateDir, "cache"))) if (name.startsWith("view-")) rmSync(join(mailbox.stateDir, "cache", name), { force: true });
    const run = timeProcess(process.execPath, [hook, "user-prompt"], { input, env });
    if (!run.stdout.includes("1 new message")) throw new Error("a cold run did not flag the pending message");
    cold.push(run.elapsed);
    coldRss.push(run.rss);
  }
  report(`hook ${size} cold median ms`, median(cold), "node -e 0 median ms", median(base), `(peak RSS ${median(coldRss)} KiB; cold = no snapshot, from the index)`);
}

async function benchServer() {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const stateDir = join(work, "server");
  const connect = async (args, env = {}) => {
    const started = process.hrtime.bigint();
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args, env: { ...process.env, HOME: work, PEERPOST_HOME: stateDir, ...env } }));
    await client.listTools();
    return { client, ms: Number(process.hrtime.bigint() - started) / 1e6 };
  };
  console.error("\nserver: cold start to tools/list vs a minimal SDK server");
  const ours = [];
  const minimal = [];
  for (let i = 0; i < 9; i++) {
    const a = await connect([join(root, "dist/claude-code/server.mjs")], { PEERPOST_ADDRESS: "claude:bench" });
    ours.push(a.ms);
    await a.client.close();
    const b = await connect([join(root, "scripts/bench/minimal-server.mjs")]);
    minimal.push(b.ms);
    await b.client.close();
  }
  report("peerpost start→tools/list ms", median(ours), "minimal SDK server ms", median(minimal));

  console.error("\nsend → wait wake-up latency between two server processes (reply sent → wait returns)");
  const alice = await connect([join(root, "dist/cli.mjs"), "serve"], { PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect([join(root, "dist/cli.mjs"), "serve"], { PEERPOST_ADDRESS: "codex:bob" });
  const call = async (client, name, args) => (await client.callTool({ name, arguments: args })).structuredContent;
  await call(alice.client, "health", {});
  await call(bob.client, "health", {});
  const latencies = [];
  for (let i = 0; i < 40; i++) {
    const sent = await call(alice.client, "message", { to: "codex:bob", message: `q${i}`, anticipation: "reply" });
    const waiting = call(alice.client, "wait", { messageId: sent.messageId, timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const started = process.hrtime.bigint();
    await call(bob.client, "reply", { messageId: sent.messageId, resolution: "reply", message: "a" });
    const result = await waiting;
    if (result.outcome !== "reply") throw new Error(`unexpected outcome ${result.outcome}`);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  // Baseline: a bare client round trip to the same server (health), i.e. the floor of any tool call.
  const roundTrips = [];
  for (let i = 0; i < 40; i++) {
    const started = process.hrtime.bigint();
    await call(bob.client, "health", {});
    roundTrips.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  report("reply→wait wake p50 ms", percentile(latencies, 50), "health round trip p50 ms", percentile(roundTrips, 50));
  report("reply→wait wake p99 ms", percentile(latencies, 99), "health round trip p99 ms", percentile(roundTrips, 99));
  await alice.client.close();
  await bob.client.close();
}

try {
  if (only.has("append")) await benchGroupCommit({ root, work, report });
  if (only.has("catchup")) await benchCatchUp({ root, work, report, median, openPeerpost });
  if (only.has("registry")) await benchRegistry({ root, work, report, median, openPeerpost });
  if (only.has("receipts")) await benchReceipts({ work, report, median, openPeerpost });
  if (only.has("logs")) await benchLogs({ root, work, report, median, openPeerpost });
  if (only.has("claimshook")) await benchClaimsHook({ root, work, runs, report, median, timeProcess, openPeerpost });
  if (only.has("ui")) await benchUi({ root, work, runs, report, median, openPeerpost });
  if (only.has("uibig")) await benchUiScale({ root, work, sizes, runs, report, median, percentile, openPeerpost });
  if (only.has("mcp")) await benchMcpSends({ root, work, report });
  if (only.has("server")) await benchServer();
  if (only.has("rss")) await benchServerRss({ root, work, report });
  for (const size of sizes) {
    if (only.has("newsession")) await benchNewSessions({ root, work, size, runs: Math.min(runs, 11), report, timeProcess, median, openPeerpost });
    if (only.has("compact")) await benchCompaction({ root, work, size, report, timeProcess, median });
  }
  if (only.has("shim")) await benchShim({ root, work, report, percentile, openPeerpost });
  if (only.has("live")) await benchLiveTyping({ root, work, report, median, percentile, openPeerpost });
  if (only.has("claude-inbox")) await benchLiveClaude({ root, work, report, percentile, openPeerpost });
  if (only.has("postgres")) await benchPostgres({ root, work, runs, report, median, percentile, timeProcess });
  if (only.has("inbox") || only.has("hook")) {
    for (const size of sizes) {
      console.error(`\nmailbox of ${size} messages`);
      const mailbox = prepareMailbox(size);
      if (only.has("inbox")) await benchInbox(size, mailbox);
      if (only.has("hook")) await benchHook(size, mailbox);
      rmSync(mailbox.home, { recursive: true, force: true });
    }
  }
  console.log("\n| measure | value | baseline | ratio | notes |\n|---|---|---|---|---|");
  for (const row of results) console.log(`| ${row.name} | ${row.value.toFixed(2)} | ${row.baselineName} ${row.baseline.toFixed(2)} | ${formatRatio(row.ratio)}× | ${row.extra} |`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
