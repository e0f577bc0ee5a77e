// Storage rows of `npm run bench`: sends through 8 MCP servers, new sessions on a large log, compaction,
// and server RSS as the log grows. Each row is a ratio to a baseline measured in the same run, with its
// method printed beside it. Large logs are generated here, in the bench's temp dir.
import { spawn } from "node:child_process";
import { appendFileSync, closeSync, cpSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { generateMailbox } from "./mailbox-generator.mjs";
import { LINE, wallMs } from "./start-signal.mjs";
import { medianRound } from "./rounds.mjs";

/**
 * Runs workers (module paths with their args) that follow start-signal.mjs: each says "ready" once set
 * up, waits for the go file, and says "done <wall ms>" when its timed work is over. Returns the seconds
 * from go to the last "done": start-up and process exit are not measured, as in the raw loop.
 */
export async function timeFromGo(dir, workers, env = process.env) {
  const go = join(dir, `go-${Date.now()}`);
  const ready = [];
  const done = workers.map((args) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, go], { stdio: ["ignore", "pipe", "inherit"], env });
    let output = "";
    ready.push(new Promise((ok) => child.stdout.on("data", (chunk) => (output += chunk) && output.includes("ready\n") && ok())));
    child.on("close", (code) => {
      const finishedAt = Number(/^done (\S+)$/m.exec(output)?.[1]);
      if (code === 0 && Number.isFinite(finishedAt)) resolve(finishedAt);
      else reject(new Error(`bench worker ${args[0]} exited ${code}${Number.isFinite(finishedAt) ? "" : " without saying done"}`));
    });
  }));
  await Promise.all(ready);
  const started = wallMs();
  writeFileSync(go, "");
  const finishedAt = await Promise.all(done);
  return (Math.max(...finishedAt) - started) / 1000;
}

/** One raw loop of whole-line appends, each fsynced: the floor a durable append cannot beat alone. */
export function rawAppendRate(path, count) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const fd = openSync(path, "a", 0o600);
    writeSync(fd, LINE);
    fsyncSync(fd);
    closeSync(fd);
  }
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** `count` MCP servers (peerpost's unless `command` says another) with a client each; `pids` are the servers' processes. */
async function connectServers(root, stateDir, count, env, command = [join(root, "dist/cli.mjs"), "serve"]) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const servers = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const client = new Client({ name: "bench", version: "1" });
      const transport = new StdioClientTransport({ command: process.execPath, args: command, env: { ...env, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: `claude:server-${i}` }, stderr: "ignore" });
      await client.connect(transport);
      return { client, pid: transport.pid };
    }),
  );
  return { clients: servers.map((server) => server.client), pids: servers.map((server) => server.pid) };
}

/** CPU time (µs) the processes have used so far, user and system apart, from /proc (clock ticks of 10 ms; all their threads). */
function cpuMicroseconds(pids) {
  let user = 0;
  let system = 0;
  for (const pid of pids) {
    // After the command name (which may hold spaces), utime and stime are the 12th and 13th fields.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    user += Number(fields[11]);
    system += Number(fields[12]);
  }
  return { user: user * 10_000, system: system * 10_000 };
}

/** Calls/s when every client makes `perClient` calls back to back, all clients at once. */
async function callRate(clients, perClient, call) {
  const started = process.hrtime.bigint();
  await Promise.all(clients.map(async (client, i) => {
    for (let n = 0; n < perClient; n++) await call(client, i, n);
  }));
  return (clients.length * perClient) / (Number(process.hrtime.bigint() - started) / 1e9);
}

const MCP_COLD_CALLS = 100;
/** Calls of each kind every server answers before the timed rounds: its send path is optimized by then, as in a long-lived server. */
const MCP_WARM_UPS = 1000;
const MCP_ROUNDS = 5;
const MCP_ROUND_CALLS = 300;

export async function benchMcpSends({ root, work, report }) {
  console.error(`\n8 MCP servers (dist/cli.mjs serve), each called by its own client, all at once: \`message\` sends vs calls refused for their arguments (the protocol's ceiling), with the 8 servers' CPU per call (user+system, from /proc). First the fresh servers' first ${MCP_COLD_CALLS} calls of each kind; then, after ${MCP_WARM_UPS} more of each, ${MCP_ROUNDS} interleaved rounds of ${MCP_ROUND_CALLS} (median round reported). Then the same rounds on 8 new servers that skip every fsync (PEERPOST_FAULT=skip-fsync): what sends reach through MCP if durability cost nothing; and on 8 of the SDK's own servers whose \`message\` only appends a line and fsyncs it (scripts/bench/durable-server.mjs): the floor under any durable send through MCP`);
  await measureMcpServers({ root, stateDir: join(work, "mcp"), env: { ...process.env, HOME: work }, report, label: "", fresh: true, note: "target ≥ 0.6×" });
  await measureMcpServers({ root, stateDir: join(work, "mcp-no-fsync"), env: { ...process.env, HOME: work, PEERPOST_FAULT: "skip-fsync" }, report, label: ", no fsync", fresh: false, note: "bound: durability free" });
  mkdirSync(join(work, "mcp-floor"), { recursive: true });
  await measureMcpServers({
    root,
    stateDir: join(work, "mcp-floor"),
    env: { ...process.env, HOME: work, DURABLE_LOG: join(work, "mcp-floor", "log.jsonl") },
    command: [join(root, "scripts/bench/durable-server.mjs")],
    report,
    label: ", the SDK's server that only appends and fsyncs",
    fresh: false,
    note: "the floor: no server does a durable send for less",
  });
}

/** Rows for 8 servers on `stateDir`: sends against refused calls, and the servers' CPU per call in each. */
async function measureMcpServers({ root, stateDir, env, command, report, label, fresh, note }) {
  const { clients, pids } = await connectServers(root, stateDir, 8, env, command);
  /** Calls/s of `call`, and the servers' CPU µs per call meanwhile. */
  const measure = async (perClient, call) => {
    const before = cpuMicroseconds(pids);
    const rate = await callRate(clients, perClient, call);
    const after = cpuMicroseconds(pids);
    const calls = clients.length * perClient;
    const system = (after.system - before.system) / calls;
    return { rate, cpu: (after.user - before.user) / calls + system, system };
  };
  const refuse = async (client) => {
    const result = await client.callTool({ name: "message", arguments: { to: "claude:server-0", message: "x", bogus: 1 } });
    if (!result.isError) throw new Error("the refused call was accepted");
  };
  /** Server i sends to the next of the first `ring` servers. */
  const send = async (client, i, n, ring = 8) => {
    const result = await client.callTool({ name: "message", arguments: { to: `claude:server-${(i + 1) % ring}`, message: `bench ${i}/${n}` } });
    if (result.isError) throw new Error(`send failed: ${JSON.stringify(result.structuredContent)}`);
  };
  const reportRate = (phase, refused, sends, rateNote) => report(`MCP sends/s (8 servers${label}, ${phase})`, sends.rate, "refused calls/s", refused.rate, rateNote);
  const reportCpu = (phase, refused, sends, cpuNote = "") =>
    report(`MCP server CPU µs per send${label}, ${phase}`, sends.cpu, "per refused call", refused.cpu, `(where a send's time goes; in the kernel: ${sends.system.toFixed(0)} µs per send, ${refused.system.toFixed(0)} per refused call${cpuNote})`);
  try {
    // peerpost's recipients must be known: one server registers it by its first call.
    if (!command) for (const client of clients) await client.callTool({ name: "health", arguments: {} });
    // Measured on every set of servers (they warm them up too), reported for the first.
    const coldRefused = await measure(MCP_COLD_CALLS, refuse);
    const coldSends = await measure(MCP_COLD_CALLS, send);
    if (fresh) {
      reportRate("fresh", coldRefused, coldSends, `(each server's first ${MCP_COLD_CALLS} calls of each kind)`);
      reportCpu("fresh", coldRefused, coldSends);
    }
    await measure(MCP_WARM_UPS, refuse);
    await measure(MCP_WARM_UPS, send);
    const rounds = [];
    for (let i = 0; i < MCP_ROUNDS; i++) {
      const refused = await measure(MCP_ROUND_CALLS, refuse);
      const sends = await measure(MCP_ROUND_CALLS, send);
      rounds.push({ refused: refused.rate, sends: sends.rate, refusedCpu: refused.cpu, sendsCpu: sends.cpu, refusedSystem: refused.system, sendsSystem: sends.system });
    }
    // Each row is the median of its own ratio: the round with the median rate ratio need not have the median CPU ratio.
    const byRate = medianRound(rounds, "sends", "refused");
    reportRate("warmed", { rate: byRate.round.refused }, { rate: byRate.round.sends }, `(${note}; rounds ${byRate.spread})`);
    const byCpu = medianRound(rounds, "sendsCpu", "refusedCpu");
    reportCpu("warmed", { cpu: byCpu.round.refusedCpu, system: byCpu.round.refusedSystem }, { cpu: byCpu.round.sendsCpu, system: byCpu.round.sendsSystem }, `; rounds ${byCpu.spread}`);
    if (fresh) await measureBystanders(clients, pids, send, report);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

const BYSTANDER_SENDS = 300;

/**
 * Two sessions message each other while six others' servers idle on the same machine: what each send costs
 * the bystanders (their CPU, all six) against what it costs the pair. A bystander has nothing to do with
 * mail that is not for it, whatever else the send writes in the state dir.
 */
async function measureBystanders(clients, pids, send, report) {
  const pair = pids.slice(0, 2);
  const bystanders = pids.slice(2);
  const total = (list) => {
    const { user, system } = cpuMicroseconds(list);
    return user + system;
  };
  const before = { pair: total(pair), bystanders: total(bystanders) };
  await Promise.all(clients.slice(0, 2).map(async (client, i) => {
    for (let n = 0; n < BYSTANDER_SENDS; n++) await send(client, i, n, 2);
  }));
  const sends = 2 * BYSTANDER_SENDS;
  const bystanderCpu = (total(bystanders) - before.bystanders) / sends;
  report("MCP bystander servers' CPU µs per send (6 idle servers)", bystanderCpu, "the sending pair's CPU per send", (total(pair) - before.pair) / sends, `(target 0: a server wakes only for the logs it reads; ${BYSTANDER_SENDS} sends each way; clock ticks of 10 ms, so one tick in the run reads as ${(10_000 / sends).toFixed(0)} µs)`);
}

/** A generated log with one pending request for each of `count` sessions peerpost has never seen. */
function prepareNewSessions(work, size, count) {
  const home = join(work, `new-${size}`);
  const stateDir = join(home, ".peerpost");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const log = join(stateDir, "mailbox.jsonl");
  const started = Date.now();
  generateMailbox(log, { messages: size, pendingFor: "claude:bench-me" });
  const lines = [];
  for (let i = 0; i < count; i++) {
    const id = `01NEWSESS${String(i).padStart(3, "0")}${"0".repeat(14)}`;
    lines.push(JSON.stringify({ v: 1, type: "msg", id, from: "codex:bench-peer", fromVerified: true, to: `claude:new-${i}`, sentAt: "2026-06-01T00:00:00.000Z", anticipation: "reply", conversationId: id, hop: 1, body: "for a new session" }) + "\n");
  }
  appendFileSync(log, lines.join(""));
  console.error(`  generated ${size} messages (${(statSync(log).size / 1e6).toFixed(0)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { home, stateDir };
}

/** Waits up to 10 s for a detached `index-run` to write its pid file; returns its pid. */
async function indexRunPid(stateDir) {
  for (let waited = 0; waited < 10_000; waited += 5) {
    try {
      const pid = Number(readFileSync(join(stateDir, "index-run.pid"), "utf8").trim());
      if (pid > 0) return pid;
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the hook started no index-run");
}

/**
 * New sessions on the same log before any index covers it (an older peerpost, a copy or a migration left it):
 * both hooks tell the mail the log's last bytes hold. The session's MCP server, which the host starts beside
 * SessionStart, starts the detached index build (server.ts); here it is started as the server starts it, untimed.
 * Each session meets the log unindexed: that build is stopped (SIGSTOP, so it takes no CPU from the first
 * prompt, which sees it running and starts none), then killed and its partial index removed.
 */
async function measureUnindexed({ root, stateDir, env, work, size, runs, report, timeProcess, median }) {
  const hook = join(root, "dist/claude-code/hooks.cjs");
  const base = [];
  const starts = [];
  const prompts = [];
  for (let i = 0; i < runs; i++) {
    base.push(timeProcess(process.execPath, ["-e", "0"], { env }).elapsed);
    const sessionId = `new-${i}`;
    const start = timeProcess(process.execPath, [hook, "session-start"], { input: JSON.stringify({ session_id: sessionId, hook_event_name: "SessionStart", source: "startup", cwd: work }), env });
    if (!start.stdout.includes("1 new message")) throw new Error(`SessionStart on the unindexed log did not flag the pending request: ${start.stdout}`);
    if (existsSync(join(stateDir, "index-run.pid"))) throw new Error("SessionStart started the index build, which the session's server starts");
    spawn(process.execPath, [join(root, "dist/claude-code/server.mjs"), "index-run"], { env: { ...env, PEERPOST_HOME: stateDir }, detached: true, stdio: "ignore" }).unref();
    const build = await indexRunPid(stateDir);
    process.kill(build, "SIGSTOP");
    try {
      const prompt = timeProcess(process.execPath, [hook, "user-prompt"], { input: JSON.stringify({ session_id: sessionId, hook_event_name: "UserPromptSubmit", prompt: "hi" }), env });
      if (!prompt.stdout.includes("1 new message")) throw new Error(`the first prompt on the unindexed log did not flag the pending request: ${prompt.stdout}`);
      starts.push(start.elapsed);
      prompts.push(prompt.elapsed);
    } finally {
      process.kill(build, "SIGKILL");
      rmSync(join(stateDir, "index-run.pid"), { force: true });
      rmSync(join(stateDir, "index"), { recursive: true, force: true });
    }
  }
  report(`new session SessionStart ${size}, unindexed log, ms`, median(starts), "node -e 0 median ms", median(base), "(tells the mail in the log's last 64 KiB; the session's server starts the index build)");
  report(`new session first prompt ${size}, unindexed log, ms`, median(prompts), "node -e 0 median ms", median(base), "(the index build still running)");
}

export async function benchNewSessions({ root, work, size, runs, report, timeProcess, median, openPeerpost }) {
  console.error(`\nnew sessions on a ${size}-message log: SessionStart and then the first UserPromptSubmit of a session peerpost never saw (one pending request each), whole hook processes, vs bare node -e 0 (${runs} sessions, interleaved), first on the log no index covers yet, then indexed`);
  const { home, stateDir } = prepareNewSessions(work, size, 2 * runs);
  try {
    const env = { PATH: process.env.PATH, HOME: home };
    // The build compacts nothing here (it would rewrite the generated log): only the hooks are measured.
    await measureUnindexed({ root, stateDir, env: { ...env, PEERPOST_COMPACT_AT_BYTES: String(2 ** 40) }, work, size, runs, report, timeProcess, median });
    // The explicit rebuild: the one step that reads the whole log, done once (peerpost compact does it too).
    const indexStarted = Date.now();
    openPeerpost({ env: { ...env, PEERPOST_HOME: stateDir }, home }).mailbox.indexAll();
    console.error(`  index built once in ${((Date.now() - indexStarted) / 1000).toFixed(1)} s`);
    const hook = join(root, "dist/claude-code/hooks.cjs");
    const base = [];
    const starts = [];
    const prompts = [];
    const rss = [];
    for (let i = 0; i < runs; i++) {
      base.push(timeProcess(process.execPath, ["-e", "0"], { env }).elapsed);
      // Sessions the unindexed rows did not register.
      const sessionId = `new-${runs + i}`;
      const start = timeProcess(process.execPath, [hook, "session-start"], { input: JSON.stringify({ session_id: sessionId, hook_event_name: "SessionStart", source: "startup", cwd: work }), env });
      if (!start.stdout.includes("1 new message")) throw new Error(`SessionStart did not flag the pending request: ${start.stdout}`);
      const prompt = timeProcess(process.execPath, [hook, "user-prompt"], { input: JSON.stringify({ session_id: sessionId, hook_event_name: "UserPromptSubmit", prompt: "hi" }), env });
      if (!prompt.stdout.includes("1 new message")) throw new Error(`the first prompt did not flag the pending request: ${prompt.stdout}`);
      starts.push(start.elapsed);
      prompts.push(prompt.elapsed);
      rss.push(start.rss, prompt.rss);
    }
    report(`new session SessionStart ${size} ms`, median(starts), "node -e 0 median ms", median(base), `(peak RSS ${Math.max(...rss)} KiB)`);
    report(`new session first prompt ${size} ms`, median(prompts), "node -e 0 median ms", median(base));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Sizes at which the bench compacts the same log in four rounds too (a copy of the log, and four passes). */
const ROUNDS_ROW_MAX_SIZE = 100_000;

/** A node child's plain copy of argv[1] to argv[2], fsynced: what compaction's time is measured against. */
const PLAIN_COPY = `const { createReadStream, createWriteStream, openSync, fsyncSync, closeSync } = require("node:fs");
const { pipeline } = require("node:stream/promises");
const [from, to] = process.argv.slice(1);
pipeline(createReadStream(from, { highWaterMark: 1 << 20 }), createWriteStream(to, { mode: 0o600 })).then(() => { const fd = openSync(to, "r"); fsyncSync(fd); closeSync(fd); });`;

// The floor under any compaction that checks each line: the plain copy, with every line parsed once on its way.
const PARSED_COPY = `const { openSync, readSync, writeSync, fsyncSync, closeSync } = require("node:fs");
const [from, to] = process.argv.slice(1);
const source = openSync(from, "r");
const target = openSync(to, "w", 0o600);
const chunk = Buffer.allocUnsafe(1 << 20);
let rest = Buffer.alloc(0);
for (let read; (read = readSync(source, chunk, 0, chunk.length, null)) > 0; ) {
  const bytes = Buffer.concat([rest, chunk.subarray(0, read)]);
  let start = 0;
  for (let end; (end = bytes.indexOf(10, start)) >= 0; start = end + 1) JSON.parse(bytes.toString("utf8", start, end));
  writeSync(target, bytes, 0, start);
  rest = Buffer.from(bytes.subarray(start));
}
fsyncSync(target);
closeSync(target);
closeSync(source);`;

export async function benchCompaction({ root, work, size, report, timeProcess, median }) {
  console.error(`\ncompaction: ${size} resolved messages older than the retention and 1000 open ones; live log size after \`peerpost compact\` vs before, its time vs a plain fsynced copy of the same log, its peak RSS vs bare node (one run each, whole processes)`);
  const home = join(work, `compact-${size}`);
  const stateDir = join(home, ".peerpost");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const log = join(stateDir, "mailbox.jsonl");
  try {
    generateMailbox(log, { messages: size, pendingFor: "claude:bench-me", openCount: 1000 });
    const before = statSync(log).size;
    const env = { PATH: process.env.PATH, HOME: home, PEERPOST_NOW: "2030-01-01T00:00:00Z" };
    // Indexed first, as readers leave a log this size (past FAR_BEHIND_BYTES, a hook or server starts this
    // very run): a compaction then starts the new log's index over in the files it had. With the size
    // setting out of reach, or past 64 MiB this run would compact the log itself, and the rows below would time nothing.
    const indexed = timeProcess(process.execPath, [join(root, "dist/cli.mjs"), "index-run"], { env: { ...env, PEERPOST_COMPACT_AT_BYTES: String(2 ** 40) } });
    if (indexed.status !== 0 || statSync(log).size !== before) throw new Error(`index-run failed, or compacted the log: ${indexed.stdout}`);
    // The same log for compaction in rounds (below), before this one compacts it.
    const roundsHome = join(work, `compact-rounds-${size}`);
    if (size <= ROUNDS_ROW_MAX_SIZE) cpSync(stateDir, join(roundsHome, ".peerpost"), { recursive: true });
    // The baseline: a plain copy of the same live log, as durable as compaction's output (fsynced), in a node child.
    const copy = timeProcess(process.execPath, ["-e", PLAIN_COPY, log, join(work, `copy-${size}.jsonl`)], { env });
    rmSync(join(work, `copy-${size}.jsonl`), { force: true });
    const parsedCopy = timeProcess(process.execPath, ["-e", PARSED_COPY, log, join(work, `copy-${size}.jsonl`)], { env });
    rmSync(join(work, `copy-${size}.jsonl`), { force: true });
    const bareNode = timeProcess(process.execPath, ["-e", "0"], { env });
    const run = timeProcess(process.execPath, [join(root, "dist/cli.mjs"), "compact", "--json"], { env });
    if (run.status !== 0) throw new Error(`compact failed: ${run.stdout}`);
    const after = statSync(log).size;
    const archive = join(stateDir, "mailbox.archive.jsonl");
    report(`compaction ${size} live bytes after`, after, "live bytes before", before, `(${(run.elapsed / 1000).toFixed(1)} s, peak RSS ${(run.rss / 1024).toFixed(0)} MB, archive ${(statSync(archive).size / 1e6).toFixed(0)} MB; target < 0.05×)`);
    report(`compaction ${size} ms, \`peerpost compact\` whole process`, run.elapsed, "plain copy ms", copy.elapsed, `(copy: a node child streams the same ${(before / 1e6).toFixed(0)} MB live log to a new file and fsyncs it; compaction includes indexing the archive and starting the live log's index over, which readers had built; one run each; target ≤ 3×)`);
    report(`compaction ${size}: the copy with each line parsed once, ms`, parsedCopy.elapsed, "plain copy ms", copy.elapsed, "(a floor, not a target: a node child copies the log as above and JSON.parses each line on its way; compaction parses every line to decide what moves and each moved line again to index the archive, and checks every record's fields)");
    report(`compaction ${size} peak RSS MB`, run.rss / 1024, "bare node -e 0 peak RSS MB", bareNode.rss / 1024, "(/usr/bin/time -f %M of each child; target ≤ 200 MB at any size)");
    if (size <= ROUNDS_ROW_MAX_SIZE) {
      // Memory follows a round (PEERPOST_COMPACT_ROUND_MESSAGES), not the log: a log four rounds long.
      const round = size / 4;
      const inRounds = timeProcess(process.execPath, [join(root, "dist/cli.mjs"), "compact", "--json"], { env: { ...env, HOME: roundsHome, PEERPOST_COMPACT_ROUND_MESSAGES: String(round) } });
      if (inRounds.status !== 0 || JSON.parse(inRounds.stdout).liveBytesAfter !== after) throw new Error(`compact in rounds did not leave what one round leaves: ${inRounds.stdout}`);
      rmSync(roundsHome, { recursive: true, force: true });
      report(`compaction ${size} in rounds of ${round}, peak RSS MB`, inRounds.rss / 1024, "one round's peak RSS MB", run.rss / 1024, `(${(inRounds.elapsed / 1000).toFixed(1)} s against ${(run.elapsed / 1000).toFixed(1)} s: each round reads what the last left)`);
    }
    // A message from the middle of the archive: its lookup and its thread go through the archive's index.
    const fd = openSync(archive, "r");
    const middle = Buffer.alloc(64 * 1024);
    readSync(fd, middle, 0, middle.length, statSync(archive).size >> 1);
    closeSync(fd);
    const text = middle.toString("utf8");
    const archivedId = /"id":"([0-9A-Z]{26})"/.exec(text.slice(text.indexOf("\n")))[1];
    const status = [];
    const version = [];
    const bare = [];
    // The `peerpost` command as installed (package.json's bin). The first run of each writes its code
    // cache; the rows time the runs after, as a person's commands run.
    const bin = join(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).bin.peerpost);
    for (let i = 0; i < 12; i++) {
      const baseline = timeProcess(process.execPath, ["-e", "0"], { env }).elapsed;
      const start = timeProcess(process.execPath, [bin, "--version"], { env }).elapsed;
      const lookup = timeProcess(process.execPath, [bin, "status", archivedId], { env });
      if (lookup.status !== 0) throw new Error(`status failed: ${lookup.stdout}`);
      if (i === 0) continue;
      bare.push(baseline);
      version.push(start);
      status.push(lookup.elapsed);
    }
    report(`peerpost status of an archived message (${size})`, median(status), "bare node -e 0 ms", median(bare), "(median of 11 interleaved runs; the archive's index finds it and its thread, no step reads the archive whole; target ≤ 2×)");
    report("peerpost --version, the CLI's start-up", median(version), "bare node -e 0 ms", median(bare), "(the same 11 interleaved runs: the bin, its loader and the light program from the code cache)");
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

export async function benchServerRss({ root, work, report }) {
  console.error("\nserver RSS as the log grows: one server (dist/cli.mjs serve) answering `read` while other sessions' mail grows the log by 4 × 25k messages; VmRSS after the first and the last batch");
  const stateDir = join(work, "rss");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const log = join(stateDir, "mailbox.jsonl");
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(root, "dist/cli.mjs"), "serve"], env: { ...process.env, HOME: work, PEERPOST_HOME: stateDir, PEERPOST_ADDRESS: "claude:rss" }, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  try {
    const samples = [];
    for (let batch = 0; batch < 4; batch++) {
      const part = join(work, `rss-part-${batch}.jsonl`);
      generateMailbox(part, { messages: 25_000, pendingFor: "claude:rss" });
      appendFileSync(log, readFileSync(part));
      rmSync(part);
      const result = await client.callTool({ name: "read", arguments: {} });
      if (result.isError) throw new Error(`read failed: ${JSON.stringify(result.structuredContent)}`);
      samples.push({ rss: rssKiB(transport.pid), bytes: statSync(log).size });
    }
    const first = samples[0];
    const last = samples.at(-1);
    report("server RSS KiB, log grown 4×", last.rss, "RSS KiB after the first quarter", first.rss, `(log ${(first.bytes / 1e6).toFixed(0)} → ${(last.bytes / 1e6).toFixed(0)} MB of other sessions' mail; target flat)`);
  } finally {
    await client.close();
  }
}
