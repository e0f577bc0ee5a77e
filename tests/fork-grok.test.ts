// Forking a real Grok session offline: `peerpost fork` runs `grok --prompt-file /dev/stdin --resume <id> --fork-session
// --session-id <new>` detached; the fake chat API is shown the original history; the original's files are unchanged; the answer comes
// back once, under the model the fork asked for. Grok 1.0.41 checks `-m` against its model catalogue
// ("unknown model id" otherwise), so the model is declared the way a person declares one of their own: a
// `[model.<id>]` table in config.toml, served by the same loopback fake.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { randomUUID } from "node:crypto";
import { cli, json } from "./helpers/cli.js";
import { onCleanup } from "./helpers/temp.js";
import { assertUsageAtLeast } from "./helpers/usage.js";
import { isHousekeepingCall } from "./helpers/chat-hosts.js";
import { until } from "./helpers/poll.js";
import { startFakeOpenAIChat, type ChatScript } from "./helpers/fake-openai-chat.js";
import { grokBinary, grokSingle, grokUnavailable, installGrokPlugin, makeGrokHome } from "./helpers/grok-cli.js";
import { repoRoot } from "./helpers/claude-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const unavailable = grokUnavailable();

/** Hashes of every file of one session under Grok's sessions dir (its path names the session id). */
function sessionFiles(dir: string, sessionId: string, found: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sessionFiles(path, sessionId, found);
    else if (path.includes(sessionId)) found[path] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return found;
}


test("grok: a fork runs on the forked history under another model and its answer returns once", { skip: unavailable ? `grok CLI unavailable: ${unavailable}` : false, timeout: 240_000 }, async (t) => {
  let script: ChatScript = () => ({ text: "NOTED" });
  const fake = await startFakeOpenAIChat({ script: (call) => (isHousekeepingCall(call) ? { text: "housekeeping" } : script(call)) });
  onCleanup(t, () => fake.close());
  const grok = makeGrokHome({ apiBaseUrl: fake.baseUrl });
  onCleanup(t, () => grok.cleanup());
  const model = (id: string) => `\n[model.${id}]\nmodel = "${id}"\nbase_url = "${fake.baseUrl}"\napi_backend = "chat_completions"\nname = "${id}"\n`;
  appendFileSync(join(grok.grokHome, "config.toml"), `\n[models]\ndefault = "grok-home-model"\n${model("grok-home-model")}${model("grok-fork-model")}`);
  const stateDir = join(grok.root, "peerpost");
  Object.assign(grok.env, { PEERPOST_HOME: stateDir, PEERPOST_USER: "pat", PATH: `${dirname(grokBinary())}:${grok.env.PATH ?? process.env.PATH ?? ""}` });
  await installGrokPlugin(grok, repoRoot(), "peerpost");
  const env = grok.env as Record<string, string>;
  assert.equal((await cli(env, "hooks", "install", "grok")).code, 0);
  const sessionId = randomUUID();
  const address = `grok:${sessionId}`;
  const first = await grokSingle("Remember the word PINEAPPLE.", { home: grok, sessionId });
  assert.equal(first.code, 0, first.stderr.slice(-2000));

  const before = sessionFiles(join(grok.grokHome, "sessions"), sessionId);
  assert.ok(Object.keys(before).length > 0, "the original session's files");
  script = () => ({ text: "FORK ANSWER: PINEAPPLE" });
  const asked = fake.chatCalls().length;
  const forked = await cli(env, "fork", address, "Which word did I ask you to remember?", "--model", "grok-fork-model", "--json");
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const runId = String(json(forked).runId);
  const forkAddress = String(json(forked).forkAddress);
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: grok.home })!;
  await until(() => store().wakes.fold().runs.get(runId)?.reconciled !== undefined, 120_000, "the fork to end and answer");
  const run = store().wakes.fold().runs.get(runId)!;
  const log = run.ended?.logPath ? readFileSync(run.ended.logPath, "utf8").slice(-3000) : "";
  assert.equal(run.ended?.outcome, "ok", JSON.stringify({ ended: run.ended, log }));
  assert.equal(run.forked?.address, forkAddress);
  const forkCalls = fake.chatCalls().slice(asked).filter((call) => JSON.stringify(call.body.messages).includes("Which word did I ask you to remember?"));
  assert.ok(forkCalls.length > 0);
  assert.ok(JSON.stringify(forkCalls[0]!.body.messages).includes("Remember the word PINEAPPLE."), "the fork sees the original history");
  assert.deepEqual([...new Set(forkCalls.map((call) => call.body.model))], ["grok-fork-model"], "the fork runs on the model it asked for");
  assert.deepEqual([...new Set(fake.chatCalls().slice(0, asked).map((call) => call.body.model))], ["grok-home-model"], "the original ran on its own model");
  assert.deepEqual(sessionFiles(join(grok.grokHome, "sessions"), sessionId), before, "the original session is unchanged");
  const answers = Object.values(store().mailbox.view(address).state.messages).filter((message) => message.to === address && message.from === forkAddress);
  assert.equal(answers.length, 1);
  const body = store().mailbox.body(answers[0]!);
  assert.equal(body.split("\n")[0], `<fork thread="${forkAddress}" model="grok-fork-model" effort="default" status="completed"/>`);
  assert.match(body, /FORK ANSWER: PINEAPPLE/, JSON.stringify({ body, log }));
  // The answer's receipt carries the tokens the fork spent (the fake answers 10 in, 5 out a call).
  assertUsageAtLeast(store().receipts.query({ kind: "fork" }).receipts.find((receipt) => receipt.tags?.includes("status=completed"))?.tags, 10, 5);
});
