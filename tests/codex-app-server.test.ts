// The real `codex app-server` (pinned CLI) against the loopback fake Responses API: a message pushed
// with turn/start reaches the model exactly once and stays findable by its clientUserMessageId.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, rmSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { AppServerClient, clientIdOf, textInput } from "../plugins/codex/app-server-client.js";
import { codexAvailable, codexBinary, isolatedCodexEnv, killGroup, makeScratchDir, removeShortSocketAlias, type CodexEnv } from "./helpers/codex-cli.js";
import { startFakeResponses, type FakeResponses } from "./helpers/fake-openai-responses.js";
import { until } from "./helpers/poll.js";

const availability = codexAvailable();
const skip = availability.ok ? false : `codex CLI unavailable: ${availability.reason}`;
const CLIENT = { name: "peerpost", title: "peerpost", version: "0.1.0" };

describe("codex app-server (real CLI, loopback model)", { skip, timeout: 300_000 }, () => {
  let fake: FakeResponses;
  let scratch: string;
  let codex: CodexEnv;

  before(async () => {
    fake = await startFakeResponses((_request, index) => ({ text: `ack ${index}` }));
    scratch = makeScratchDir("peerpost-app-server-");
    codex = isolatedCodexEnv(scratch, fake.baseUrl);
  });

  after(async () => {
    await fake?.close();
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  });

  async function spawnClient(): Promise<AppServerClient> {
    const spawned = await AppServerClient.spawn({ command: codexBinary() ?? "codex", env: codex.env, cwd: codex.home });
    assert.ok(spawned.ok, spawned.ok ? "" : spawned.error.message);
    const client = spawned.value;
    const init = await client.initialize(CLIENT);
    assert.ok(init.ok, init.ok ? "" : init.error.message);
    assert.equal(init.value.codexHome, codex.codexHome, "the app-server must use the isolated CODEX_HOME");
    return client;
  }

  test("a pushed message reaches the model once and its clientUserMessageId is readable back", async () => {
    const client = await spawnClient();
    try {
      const started = await client.threadStart({ cwd: codex.home, sandbox: "read-only", approvalPolicy: "never" });
      assert.ok(started.ok, started.ok ? "" : started.error.message);
      const threadId = started.value.thread.id;

      const marker = `PEERPOST_MARKER_${randomUUID()}`;
      const messageId = `peerpost-msg-${randomUUID()}`;
      const turn = await client.turnStart({ threadId, input: [textInput(`peer message ${marker}`)], clientUserMessageId: messageId });
      assert.ok(turn.ok, turn.ok ? "" : turn.error.message);
      const completed = await client.waitForTurnCompleted(threadId, turn.value.turn.id, 30_000);
      assert.ok(completed.ok, completed.ok ? "" : completed.error.message);
      assert.equal(completed.value.status, "completed");

      assert.equal(fake.requestsContaining(marker), 1, "exactly one model request carried the marker");
      const request = fake.requests().find((candidate) => fake.occurrences(candidate, marker) > 0);
      assert.ok(request !== undefined);
      assert.equal(fake.occurrences(request, marker), 1, "the marker appears once in what the model was shown");

      const listed = await client.threadTurnsList({ threadId, itemsView: "full" });
      assert.ok(listed.ok, listed.ok ? "" : listed.error.message);
      const userItems = listed.value.data.flatMap((t) => t.items).filter((item) => item.type === "userMessage");
      assert.deepEqual(userItems.map(clientIdOf), [messageId]);

      const delivered = await client.hasClientMessage(threadId, messageId);
      assert.deepEqual(delivered, { ok: true, value: true });
      assert.deepEqual(await client.hasClientMessage(threadId, "peerpost-msg-never-sent"), { ok: true, value: false });
    } finally {
      await client.close();
    }
  });

  test("the clientUserMessageId survives an app-server restart (crash check for a pusher)", async () => {
    const first = await spawnClient();
    const messageId = `peerpost-msg-${randomUUID()}`;
    let threadId = "";
    try {
      const started = await first.threadStart({ cwd: codex.home, sandbox: "read-only", approvalPolicy: "never" });
      assert.ok(started.ok);
      threadId = started.value.thread.id;
      const turn = await first.turnStart({ threadId, input: [textInput("before restart")], clientUserMessageId: messageId });
      assert.ok(turn.ok);
      assert.ok((await first.waitForTurnCompleted(threadId, turn.value.turn.id, 30_000)).ok);
    } finally {
      await first.close();
    }
    const second = await spawnClient();
    try {
      assert.deepEqual(await second.hasClientMessage(threadId, messageId), { ok: true, value: true });
    } finally {
      await second.close();
    }
  });

  test("a second client on the unix socket can start a turn on a thread the first client created", async () => {
    const socketPath = join(scratch, "app-server.sock");
    const server = spawn(codexBinary() ?? "codex", ["app-server", "--listen", `unix://${socketPath}`], { env: codex.env, cwd: codex.home, stdio: ["pipe", "ignore", "ignore"], detached: true });
    try {
      await until(() => existsSync(socketPath), 15_000, `${socketPath} to appear`);
      const owner = await connect(socketPath);
      const pusher = await connect(socketPath);
      try {
        const started = await owner.threadStart({ cwd: codex.home, sandbox: "read-only", approvalPolicy: "never" });
        assert.ok(started.ok);
        const threadId = started.value.thread.id;
        const marker = `PEERPOST_SOCKET_${randomUUID()}`;
        const ownerSees = owner.waitForNotification((n) => n.method === "turn/completed", 30_000);
        const turn = await pusher.turnStart({ threadId, input: [textInput(marker)], clientUserMessageId: `peerpost-msg-${randomUUID()}` });
        assert.ok(turn.ok, turn.ok ? "" : turn.error.message);
        assert.ok((await ownerSees).ok, "the client that owns the thread is told the pushed turn completed");
        assert.equal(fake.requestsContaining(marker), 1);
      } finally {
        await pusher.close();
        await owner.close();
      }
    } finally {
      stop(server);
      removeShortSocketAlias(socketPath);
    }
  });
});

async function connect(socketPath: string): Promise<AppServerClient> {
  const connected = await AppServerClient.connectUnix(socketPath);
  assert.ok(connected.ok, connected.ok ? "" : connected.error.message);
  const init = await connected.value.initialize(CLIENT);
  assert.ok(init.ok, init.ok ? "" : init.error.message);
  return connected.value;
}



function stop(child: ChildProcess): void {
  child.stdin?.end();
  killGroup(child.pid);
}
