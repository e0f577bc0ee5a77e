// The live-delivery row of `npm run bench`: send → turn start on Claude Code's own inbox. A real, idle
// `claude -p` (stream-json, stdin held open, the plugin installed, offline against a loopback fake that
// answers at once) gets a request; the time runs from the send until the fake sees the model call that
// carries the pushed note, so the model's own time is not counted. Baseline: a prompt written to the same
// session's stdin until its model call, the host's own time to start a turn on input (its prompt hooks
// included). A second pair of rows times peerpost's own part: the send until the note is in the inbox.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";

const SAMPLES = 21;

function fakeMessagesApi() {
  const seen = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      if (!request.url.startsWith("/v1/messages") || request.url.startsWith("/v1/messages/count_tokens")) return response.end("{}");
      seen.push({ at: performance.now(), body });
      const event = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(
        event("message_start", { message: { id: "msg_bench", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }) +
          event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
          event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "ok" } }) +
          event("content_block_stop", { index: 0 }) +
          event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } }) +
          event("message_stop", {}),
      );
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() })));
}

async function until(condition, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export async function benchLiveClaude({ root, work, report, percentile, openPeerpost }) {
  const claude = join(root, "tests/hosts/node_modules/.bin/claude");
  if (!existsSync(claude)) return console.error("\nlive claude-inbox: skipped, the pinned claude CLI is not installed (npm test installs it)");
  console.error(`\nlive claude-inbox: send → turn start (the model call carrying the pushed note) on an idle claude -p stream-json session, vs a prompt written to its stdin; ${SAMPLES} each, p50 and p99`);
  const base = join(work, "live-claude");
  const home = join(base, "home");
  const cwd = join(base, "project");
  const stateDir = join(base, "state");
  for (const dir of [join(home, ".claude"), join(base, "tmp"), cwd]) mkdirSync(dir, { recursive: true });
  const fake = await fakeMessagesApi();
  const env = {
    PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: join(home, ".claude"), TMPDIR: join(base, "tmp"), CLAUDE_CODE_TMPDIR: join(base, "tmp"),
    ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "sk-ant-test-000000000000", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1", DISABLE_ERROR_REPORTING: "1", ENABLE_TOOL_SEARCH: "false", PEERPOST_HOME: stateDir, PEERPOST_WAKE_PER_HOUR: "1000",
  };
  for (const step of [["plugin", "marketplace", "add", root], ["plugin", "install", "peerpost@peerpost"]]) spawnSync(claude, step, { env, cwd, stdio: "ignore" });
  const child = spawn(claude, ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"], { env, cwd, stdio: ["pipe", "pipe", "ignore"], detached: true });
  let results = 0;
  child.stdout.setEncoding("utf8").on("data", (chunk) => (results += chunk.split('"type":"result"').length - 1));
  try {
    const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir, HOME: home } });
    let address;
    await until(() => (address = peerpost.sessions.list({ host: "claude-code" }).find((entry) => entry.alive && entry.push === "claude-inbox")?.address), "the session's inbox");
    const turnStart = async (start, needle) => {
      const from = fake.seen.length;
      const ended = results;
      const t0 = performance.now();
      await start();
      await until(() => fake.seen.slice(from).some((call) => call.body.includes(needle)), `a model call with ${needle}`);
      const at = fake.seen.slice(from).find((call) => call.body.includes(needle)).at;
      await until(() => results > ended, "the turn to end");
      return at - t0;
    };
    const typed = [];
    const pushed = [];
    const written = [];
    for (let i = 0; i < SAMPLES; i++) {
      typed.push(await turnStart(() => child.stdin.write(`${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: `typed ${i}` }] }, parent_tool_use_id: null, session_id: "" })}\n`), `typed ${i}`));
      let id;
      let sentAt;
      pushed.push(
        await turnStart(async () => {
          sentAt = performance.now();
          id = (await peerpost.mailbox.send({ from: "codex:bench", fromVerified: true, to: address, body: `bench ${i}`, anticipation: "reply" })).message.id;
          // peerpost's own part: until the push receipt, written once the note is in the session's socket.
          await until(() => peerpost.receipts.query({ kind: "push", address, limit: 5 }).receipts.some((receipt) => receipt.messageId === id && receipt.delivery === "delivered"), "the push receipt");
          written.push(performance.now() - sentAt);
        }, "sent you a request"),
      );
      await peerpost.mailbox.resolve({ id, by: address, resolution: "done" });
    }
    report("live claude-inbox send → turn start p50 (ms)", percentile(pushed, 50), "prompt on stdin p50", percentile(typed, 50), "target p50 ≤ 150 ms");
    report("live claude-inbox send → turn start p99 (ms)", percentile(pushed, 99), "prompt on stdin p99", percentile(typed, 99));
    report("live claude-inbox send → note in the inbox p50 (ms)", percentile(written, 50), "prompt on stdin p50", percentile(typed, 50), "peerpost's part");
    report("live claude-inbox send → note in the inbox p99 (ms)", percentile(written, 99), "prompt on stdin p99", percentile(typed, 99), "peerpost's part");
  } finally {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone
    }
    fake.close();
  }
}
