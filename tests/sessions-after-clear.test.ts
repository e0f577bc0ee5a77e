// After /clear (or /resume of another conversation) a running Claude Code process serves a new session id:
// its hooks, its server and its push follow the new one, so the session it left is not running, though its
// pid is. It is listed so (`agents`, `roles`), a send to it says where the process went (and waits for no
// push, and wakes nothing: never a second writer), the new session hears of requests left unread there
// (never their bodies), and tasks taken before stay the process's own, as its claims do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cliEnv, onCleanup, tempDir, tempPeerpost } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { connect } from "./helpers/mcp.js";
import { claudeProcess } from "./helpers/claude-process.js";
import { hostStartField } from "../core/sessions/process-tree.js";
import { updateSwitches } from "../core/wake/switches.js";
import { createTask, findTask, updateTask } from "../core/tasks/tasks.js";
import { openPeerpost } from "../core/peerpost.js";

/** A running Claude Code process (a sleep stands in) that ran claude:old-1111, then /clear: claude:new-2222. */
async function clearedProcess(t: Parameters<typeof tempPeerpost>[0], roles: string[] = []) {
  const made = tempPeerpost(t);
  const { peerpost, clock } = made;
  const host = spawn("sleep", ["300"], { stdio: "ignore" });
  onCleanup(t, () => void host.kill());
  const record = { host: "claude-code" as const, hostPid: host.pid!, ...hostStartField(host.pid!), cwd: "/work/api", roles };
  await peerpost.sessions.register({ ...record, address: "claude:old-1111", sessionId: "old-1111", source: "startup" });
  // Its server reported Claude's own inbox as the live transport.
  await peerpost.sessions.register({ ...record, address: "claude:old-1111", sessionId: "old-1111", source: "server", push: "claude-inbox" });
  const env = cliEnv(made, { PEERPOST_USER: "pat", CLAUDE_CONFIG_DIR: join(made.stateDir, "none") });
  const clear = async () => {
    clock.now += 60_000;
    await peerpost.sessions.register({ ...record, address: "claude:new-2222", sessionId: "new-2222", source: "clear" });
    await peerpost.sessions.register({ ...record, address: "claude:new-2222", sessionId: "new-2222", source: "server", push: "claude-inbox" });
  };
  return { ...made, env, clear };
}

test("after /clear, agents lists the session the process left as not running, and roles list a PEERPOST_ROLES role once", async (t) => {
  const { env, clear } = await clearedProcess(t, ["reviewer"]);
  await clear();
  const sessions = json(await cli(env, "agents", "--all", "--json")).sessions as Array<{ address: string; alive: boolean; leftFor?: string }>;
  assert.deepEqual(sessions.map(({ address, alive, leftFor }) => ({ address, alive, leftFor })), [
    { address: "claude:new-2222", alive: true, leftFor: undefined },
    { address: "claude:old-1111", alive: false, leftFor: "claude:new-2222" },
  ]);
  const roles = json(await cli(env, "roles", "--json")).roles as Array<{ role: string; holder: string }>;
  assert.deepEqual(roles.filter((row) => row.role === "reviewer").map((row) => row.holder), ["claude:new-2222"]);
});

test("after /clear, a send to the session the process left (or to its run-time role) says it is not running and where the process went", async (t) => {
  const { env, clear } = await clearedProcess(t);
  assert.equal((await cli(env, "role", "set", "reviewer", "claude:old-1111")).code, 0);
  await clear();
  for (const to of ["claude:old-1111", "role:reviewer"]) {
    const sent = json(await cli(env, "send", "--to", to, "--anticipation", "reply", "--json", "are you there?"));
    const warnings = sent.warnings as Array<{ code: string; message: string }>;
    assert.equal(sent.recipientAlive, false, JSON.stringify(sent));
    assert.ok(warnings.some((warning) => warning.code === "recipient_not_running" && warning.message.includes("claude:new-2222")), `${to}: ${JSON.stringify(warnings)}`);
  }
  const peer = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:peer" });
  const sent = (await peer.call("message", { to: "claude:old-1111", message: "are you there?", anticipation: "reply" })) as { recipientAlive: boolean; delivery: string; warnings: Array<{ code: string }> };
  assert.equal(sent.recipientAlive, false, JSON.stringify(sent));
  assert.equal(sent.delivery, "queued");
  assert.ok(sent.warnings.some((warning) => warning.code === "recipient_not_running"), JSON.stringify(sent));
});

test("after /clear, a request to the session the process left wakes nothing while the process runs", async (t) => {
  const { env, stateDir, clear } = await clearedProcess(t);
  await clear();
  updateSwitches(stateDir, (switches) => void (switches.wake = { all: true }));
  const sent = json(await cli(env, "send", "--to", "claude:old-1111", "--anticipation", "reply", "--json", "are you there?"));
  assert.equal(sent.wake, undefined, JSON.stringify(sent));
  assert.equal(existsSync(join(stateDir, "wakes.jsonl")) ? readFileSync(join(stateDir, "wakes.jsonl"), "utf8") : "", "", "no run claimed");
});

test("after /clear, the session the process runs now moves on the task its earlier session took; no one else does", async (t) => {
  const { peerpost, clear } = await clearedProcess(t);
  const task = await createTask(peerpost, { by: "user:pat", title: "fix the port" });
  await updateTask(peerpost, { id: task.id, by: "claude:old-1111", status: "in_progress" });
  await clear();
  assert.equal((await updateTask(peerpost, { id: task.id, by: "claude:new-2222", status: "done", note: "port 8080" })).status, "done");
  assert.equal(findTask(peerpost, task.id).status, "done");
  const other = await createTask(peerpost, { by: "user:pat", title: "another" });
  await updateTask(peerpost, { id: other.id, by: "claude:old-1111", status: "in_progress" });
  await assert.rejects(updateTask(peerpost, { id: other.id, by: "codex:someone", status: "done" }), { code: "permission_denied" });
});

const T0 = Date.parse("2026-03-01T10:00:00.000Z");

test("after /clear, the new session is told (by its real hooks under a claude process) of requests its process's earlier session left unread", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = (now: number) => ({ HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(now) });
  const claude = claudeProcess(t);
  const start = await claude.hook("session-start", { session_id: "old-1111", cwd: "/work/api", hook_event_name: "SessionStart", source: "startup" }, env(T0));
  assert.equal(start.code, 0, start.stderr);
  const peerpost = openPeerpost({ env: env(T0 + 1000), home, now: () => T0 + 1000 });
  onCleanup(t, () => peerpost.backend.close());
  assert.equal(peerpost.sessions.get("claude:old-1111")?.hostPid, claude.pid, "registered for the claude process");
  const { message } = await peerpost.mailbox.send({ from: "codex:asker", fromVerified: true, to: "claude:old-1111", body: "which port does the api use?", anticipation: "reply" });
  // The person types /clear before the next prompt: Claude Code starts a new session id in the same process.
  const cleared = await claude.hook("session-start", { session_id: "new-2222", cwd: "/work/api", hook_event_name: "SessionStart", source: "clear" }, env(T0 + 60_000));
  assert.equal(cleared.code, 0, cleared.stderr);
  assert.match(cleared.stdout, new RegExp(`codex:asker[\\s\\S]*claude:old-1111[\\s\\S]*${message.id}`), cleared.stdout);
  assert.doesNotMatch(cleared.stdout, /which port/, "never the body");
  // The new session's own mail still reads as its own.
  await peerpost.mailbox.send({ from: "codex:control", fromVerified: true, to: "claude:new-2222", body: "control", anticipation: "reply" });
  const prompt = await claude.hook("user-prompt", { session_id: "new-2222", cwd: "/work/api", hook_event_name: "UserPromptSubmit", prompt: "again" }, env(T0 + 64_000));
  assert.match(prompt.stdout, /codex:control/, prompt.stdout + prompt.stderr);
});

// Role enforcement agrees with `roles`: a message to the left session by its address is no coordination with a role holder.
test("role enforcement: the session a Claude Code process left (/clear) holds no role, as roles and role: say", async (t) => {
  const made = tempPeerpost(t);
  const { peerpost, clock } = made;
  // A running process (a sleep stands in).
  const running = () => {
    const host = spawn("sleep", ["300"], { stdio: "ignore" });
    onCleanup(t, () => void host.kill());
    return { hostPid: host.pid!, ...hostStartField(host.pid!) };
  };
  // A planner (Codex) and a reviewer (Claude Code, PEERPOST_ROLES=reviewer) that then ran /clear.
  await peerpost.sessions.register({ host: "codex", address: "codex:planner", sessionId: "planner", ...running(), cwd: "/work", roles: ["planner"], source: "startup" });
  const claude = { host: "claude-code" as const, ...running(), cwd: "/work/api", roles: ["reviewer"] };
  await peerpost.sessions.register({ ...claude, address: "claude:old-1111", sessionId: "old-1111", source: "startup" });
  clock.now += 60_000;
  await peerpost.sessions.register({ ...claude, address: "claude:new-2222", sessionId: "new-2222", source: "clear" });
  const env = cliEnv(made, { PEERPOST_USER: "pat", PEERPOST_ROLE_ENFORCEMENT: "enforce", CLAUDE_CONFIG_DIR: join(made.stateDir, "none") });

  const roles = json(await cli(env, "roles", "--json")).roles as Array<{ role: string; holder: string }>;
  assert.deepEqual(roles.filter((row) => row.role === "reviewer").map((row) => row.holder), ["claude:new-2222"], "the left session holds no role");

  const sent = await cli(env, "send", "--from", "codex:planner", "--to", "claude:old-1111", "--anticipation", "fyi", "--json", "notes for when you are resumed");
  assert.equal(sent.code, 0, `refused as direct coordination with a role holder: ${sent.stdout}${sent.stderr}`);
});
