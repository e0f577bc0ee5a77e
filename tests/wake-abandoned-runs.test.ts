// A wake whose runner died (killed, OOM, a machine that slept) is released by a running server's sweeper,
// which then wakes its session again: the request the dead run carried, and each one told `wake:
// "running"` meanwhile, do not wait for new mail.
// A launch whose runner died before its host started is launched again, with its first message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { claudeResult, dormantSession, standInClaude } from "./helpers/stand-in-claude.js";
import { connect } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";
import { idFactory } from "../core/common/ids.js";
import { setWakeRule, updateSwitches } from "../core/wake/switches.js";

test("a request carried by a wake whose runner died is woken again by a running server, without waiting for new mail", { timeout: 60_000 }, async (t) => {
  const standIn = standInClaude(t, "peerpost-abandoned-", () => claudeResult("answered", "dormant"));
  const { home, stateDir, project } = standIn;
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_WAKE_TIMEOUT_MS: "1000" };
  const store = () => openPeerpost({ env, home, create: true });
  const address = "claude:dormant";
  await dormantSession(store(), standIn, address);
  updateSwitches(stateDir, (switches) => setWakeRule(switches, address, true, () => "claude-code"));

  // A request was claimed by a wake; then its runner died before it recorded anything (deadline passed).
  const { message } = await store().mailbox.send({ from: "codex:asker", fromVerified: true, to: address, body: "are the tests green?", anticipation: "reply" });
  const now = Date.now();
  const id = (await idFactory())(now - 5_000);
  await store().wakes.log.append([
    { v: 1, type: "wake", id, kind: "wake", address, host: "claude-code", sessionId: "dormant", cwd: project, messageIds: [message.id], at: new Date(now - 5_000).toISOString(), deadline: new Date(now - 1_000).toISOString(), by: 999_999 },
  ]);

  // Servers run on the machine (the asker's among them); nobody sends to the session again.
  await connect(t, { ...env, PEERPOST_ADDRESS: "codex:asker" });
  const carriedAgain = () => store().wakes.fold().runsFor({ messageId: message.id }).some((run) => run.claim.id !== id);
  const deadline = Date.now() + 15_000;
  while (!carriedAgain() && Date.now() < deadline) await sleep(200);
  const dead = store().wakes.fold().runs.get(id);
  assert.ok(carriedAgain(), `the dead run's request is never woken again (dead run: ${dead?.ended?.outcome ?? "never released"})`);
});

test("a launch whose runner died before starting its host gets its first message run again by a server's sweeper", { timeout: 60_000 }, async (t) => {
  const standIn = standInClaude(t, "peerpost-launch-abandoned-", () => claudeResult("answered", "helper"));
  const { home, stateDir, project } = standIn;
  const env = { HOME: home, PEERPOST_HOME: stateDir, PATH: standIn.path };
  const store = () => openPeerpost({ env, home, create: true });
  const address = "claude:helper";
  store();
  updateSwitches(stateDir, (switches) => {
    switches.launch = true;
    setWakeRule(switches, "all", true, () => undefined);
  });
  // What launchChosenId leaves when the runner it started dies at once: the claim, the session, its first
  // message and the binding, and nothing else.
  const now = Date.now();
  const id = (await idFactory())(now - 5_000);
  await store().wakes.log.append([{ v: 1, type: "wake", id, kind: "launch", address, host: "claude-code", sessionId: "helper", cwd: project, messageIds: [], at: new Date(now - 5_000).toISOString(), deadline: new Date(now - 1_000).toISOString(), by: 999_999 }]);
  await store().sessions.register({ host: "claude-code", address, sessionId: "helper", cwd: project, source: "cli" });
  const { message } = await store().mailbox.send({ from: "codex:boss", fromVerified: true, to: address, body: "count the files", anticipation: "reply", idempotencyKey: `launch:${id}` });
  await store().wakes.log.append([{ v: 1, type: "wake-bound", id, address, sessionId: "helper", messageIds: [message.id], at: new Date(now - 4_000).toISOString() }]);

  await connect(t, { ...env, PEERPOST_ADDRESS: "codex:boss" });
  const carriedAgain = () => store().wakes.fold().runsFor({ messageId: message.id }).some((run) => run.claim.id !== id);
  const deadline = Date.now() + 15_000;
  while (!carriedAgain() && Date.now() < deadline) await sleep(200);
  const dead = store().wakes.fold().runs.get(id);
  assert.equal(dead?.ended?.outcome, "abandoned");
  assert.ok(carriedAgain(), `the launch's first message is never run again (its session: ${JSON.stringify(store().sessions.get(address))})`);
});
