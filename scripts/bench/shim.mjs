// The shim row of `npm run bench`: a request sent to an idle Codex thread in an editor, through
// `peerpost shim codex app-server` (the real pinned codex, its model a loopback fake that answers at once),
// until the editor sees the pushed turn's `turn/started`. The model's time is not in it: the turn starts
// before the model is asked. Baseline: the editor's own `turn/start` → `turn/started` on the same thread,
// what the host itself takes to start a turn. Target: p50 ≤ 150 ms.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

const SAMPLES = 21;
const WARM_UP = 2;

/** A line JSON-RPC editor on the shim's stdio. */
function editorOn(child) {
  const listeners = new Set();
  let buffer = "";
  let nextId = 1;
  child.stdout.on("data", (chunk) => {
    buffer += chunk.toString("utf8");
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      let message;
      try { message = JSON.parse(line); } catch { continue; }
      for (const listener of [...listeners]) listener(message);
    }
  });
  const next = (match, timeoutMs = 60_000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => { listeners.delete(listener); reject(new Error("bench editor: timed out")); }, timeoutMs);
    const listener = (message) => { if (match(message)) { clearTimeout(timer); listeners.delete(listener); resolve(message); } };
    listeners.add(listener);
  });
  return {
    next,
    request(method, params) {
      const id = `bench-${nextId++}`;
      const answer = next((message) => message.id === id && message.method === undefined);
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return answer;
    },
    notify: (method) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`),
  };
}

export async function benchShim({ root, work, report, percentile, openPeerpost }) {
  const { isolatedCodexEnv, codexAvailable, codexBinary } = await import(join(root, ".build/tests/helpers/codex-cli.js"));
  const { startFakeResponses } = await import(join(root, ".build/tests/helpers/fake-openai-responses.js"));
  const available = codexAvailable();
  if (!available.ok) {
    console.error(`\nshim: skipped (${available.reason})`);
    return;
  }
  console.error(`\nshim: send → turn/started in the editor through peerpost shim codex app-server (codex ${available.version}), ${SAMPLES} requests after ${WARM_UP}; baseline the editor's own turn/start → turn/started`);
  const fake = await startFakeResponses(() => ({ text: "ok" }));
  // codex refuses helper links under /tmp: its home goes under /var/tmp.
  const scratch = mkdtempSync(join("/var/tmp", "peerpost-bench-shim-"));
  const stateDir = join(work, "shim-state");
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PEERPOST_WAKE_PER_HOUR: "1000", PATH: `${dirname(codexBinary())}:${process.env.PATH ?? ""}` } });
  const child = spawn(process.execPath, [join(root, "dist/cli.mjs"), "shim", "codex", "app-server"], { env: codex.env, cwd: codex.home, stdio: ["pipe", "pipe", "ignore"] });
  try {
    const editor = editorOn(child);
    await editor.request("initialize", { clientInfo: { name: "bench", title: "bench", version: "0" }, capabilities: { experimentalApi: true, requestAttestation: false } });
    editor.notify("initialized");
    const started = await editor.request("thread/start", { cwd: codex.home, approvalPolicy: "never", sandbox: "read-only" });
    const threadId = started.result.thread.id;
    const address = `codex:${threadId}`;
    const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir, HOME: codex.home } });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the shim registers the thread and starts watching
    const turnStarted = (message) => message.method === "turn/started" && message.params?.threadId === threadId;
    const idle = (message) => message.method === "thread/status/changed" && message.params?.threadId === threadId && message.params.status?.type === "idle";
    const pushed = [];
    const own = [];
    for (let i = 0; i < SAMPLES + WARM_UP; i++) {
      let ended = editor.next(idle);
      let seen = editor.next(turnStarted);
      let begin = process.hrtime.bigint();
      await peerpost.mailbox.send({ from: "claude:bench", fromVerified: true, to: address, body: `request ${i}`, anticipation: "reply" });
      await seen;
      if (i >= WARM_UP) pushed.push(Number(process.hrtime.bigint() - begin) / 1e6);
      await ended;
      ended = editor.next(idle);
      seen = editor.next(turnStarted);
      begin = process.hrtime.bigint();
      await editor.request("turn/start", { threadId, input: [{ type: "text", text: `own ${i}`, text_elements: [] }] });
      await seen;
      if (i >= WARM_UP) own.push(Number(process.hrtime.bigint() - begin) / 1e6);
      await ended;
    }
    report("shim send→turn start p50 ms", percentile(pushed, 50), "editor turn/start→turn/started p50 ms", percentile(own, 50), "(target p50 ≤ 150 ms)");
    report("shim send→turn start p99 ms", percentile(pushed, 99), "editor turn/start→turn/started p99 ms", percentile(own, 99));
  } finally {
    child.stdin.end();
    child.kill();
    await fake.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
