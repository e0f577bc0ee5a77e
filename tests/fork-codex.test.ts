// Forking a real Codex thread offline: `peerpost fork` runs `codex exec fork <id> - -m M` (the prompt on stdin) detached;
// the fake Responses API is called with M and shown the original thread's history; the original rollout
// is unchanged; the fork names its thread in `thread.started`; its answer comes back once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { onCleanup } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { assertUsageAtLeast } from "./helpers/usage.js";
import { until } from "./helpers/poll.js";
import { startFakeResponses, type Script } from "./helpers/fake-openai-responses.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, jsonLines, makeScratchDir, repoRoot, runCodex } from "./helpers/codex-cli.js";
import { openPeerpost } from "../core/peerpost.js";

const availability = codexAvailable();
const skip = availability.ok ? false : `codex CLI unavailable: ${availability.reason}`;
const PLUGIN = "peerpost@peerpost";

function rolloutOf(dir: string, threadId: string): string | undefined {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = rolloutOf(path, threadId);
      if (found) return found;
    } else if (name.endsWith(`${threadId}.jsonl`)) return path;
  }
  return undefined;
}

test("codex: a fork runs on the forked history under the new model, leaves the original rollout unchanged, and its answer returns once", { skip, timeout: 240_000 }, async (t) => {
  let script: Script = () => ({ text: "NOTED" });
  const fake = await startFakeResponses((request, index) => script(request, index));
  onCleanup(t, () => fake.close());
  const scratch = makeScratchDir("peerpost-fork-codex-");
  onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
  const stateDir = join(scratch, "peerpost");
  const codex = isolatedCodexEnv(scratch, fake.baseUrl, { env: { PEERPOST_HOME: stateDir, PEERPOST_USER: "pat", PATH: `${dirname(codexBinary()!)}:${process.env.PATH ?? ""}` } });
  for (const args of [["plugin", "marketplace", "add", repoRoot()!, "--json"], ["plugin", "add", PLUGIN, "--json"]]) {
    const run = await runCodex(args, { env: codex.env });
    assert.equal(run.code, 0, run.stderr);
  }
  const first = await runCodex(["exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "-s", "read-only", "Remember the word PINEAPPLE."], { env: codex.env, timeoutMs: 60_000 });
  assert.equal(first.code, 0, first.stderr.slice(-2000));
  const threadId = String(jsonLines(first.stdout).find((event) => event["type"] === "thread.started")?.["thread_id"]);
  const address = `codex:${threadId}`;
  const rollout = rolloutOf(codex.env.CODEX_HOME!, threadId);
  assert.ok(rollout, "the original rollout file");
  const before = createHash("sha256").update(readFileSync(rollout)).digest("hex");
  const asked = fake.requests().length;

  script = () => ({ text: "FORK ANSWER: PINEAPPLE" });
  const forked = await cli(codex.env as Record<string, string>, "fork", address, "Which word did I ask you to remember?", "--model", "gpt-fork-model", "--json");
  assert.equal(forked.code, 0, forked.stderr + forked.stdout);
  const runId = String(json(forked).runId);
  const store = () => openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: codex.home })!;
  await until(() => store().wakes.fold().runs.get(runId)?.reconciled !== undefined, 120_000, "the fork to end and answer");
  const run = store().wakes.fold().runs.get(runId)!;
  assert.equal(run.ended?.outcome, "ok", JSON.stringify(run.ended));
  const forkAddress = run.forked?.address;
  assert.ok(forkAddress && forkAddress !== address, `a new thread: ${forkAddress}`);
  const forkRequests = fake.requests().slice(asked).filter((request) => fake.shown(request).some((shown) => shown.text.includes("Which word did I ask you to remember?")));
  assert.ok(forkRequests.length > 0);
  assert.equal(forkRequests[0]!.body.model, "gpt-fork-model");
  assert.ok(fake.shown(forkRequests[0]!).some((shown) => shown.text.includes("Remember the word PINEAPPLE.")), "the fork sees the original history");
  assert.equal(createHash("sha256").update(readFileSync(rollout)).digest("hex"), before, "the original rollout is unchanged");
  const answers = Object.values(store().mailbox.view(address).state.messages).filter((message) => message.to === address && message.from === forkAddress);
  assert.equal(answers.length, 1);
  const body = store().mailbox.body(answers[0]!);
  assert.equal(body.split("\n")[0], `<fork thread="${forkAddress}" model="gpt-fork-model" effort="default" status="completed"/>`);
  assert.match(body, /FORK ANSWER: PINEAPPLE/);
  // The answer's receipt carries the tokens the fork spent (the fake answers 1 in, 1 out a response).
  assertUsageAtLeast(store().receipts.query({ kind: "fork" }).receipts.find((receipt) => receipt.tags?.includes("status=completed"))?.tags, 1, 1);

  // Completed and not kept: the fork was archived with `codex archive`; housekeeping lists what codex lists.
  await until(() => store().receipts.query({ kind: "fork" }).receipts.some((receipt) => receipt.tags?.includes("archived")), 60_000, "the fork to be archived");
  assert.equal(store().receipts.query({ kind: "fork" }).receipts.find((receipt) => receipt.tags?.includes("archived"))?.delivery, "delivered");
  const env = codex.env as Record<string, string>;
  const listed = async () => (json(await cli(env, "sessions", "list", "--host", "codex", "--json")).sessions as Array<{ address: string; archive: string }>).map((row) => row.address);
  assert.ok((await listed()).includes(address));
  assert.ok(!(await listed()).includes(forkAddress), "the archived fork is out of codex's session list");
  const shown = await cli(env, "sessions", "show", address, "--json");
  assert.equal((json(shown).session as { archive: string }).archive, "supported");
  const archived = await cli(env, "sessions", "archive", address, "--json");
  assert.equal(archived.code, 0, archived.stderr + archived.stdout);
  assert.ok(!(await listed()).includes(address), "archived with codex's own command");
});
