// State files that are no plain file of this user's: a FIFO in place of wake.json, machine-id or
// overrides.json is refused with a code, never waited on (a plain read blocked every command, and the
// server's event loop); and a damaged machine-id is set aside and made anew once, so every process of the
// machine keeps one id.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { cli, json } from "./helpers/cli.js";
import { openPeerpost } from "../core/peerpost.js";
import { machineId } from "../core/sessions/machine.js";

/** The CLI, killed after `ms`: a hang is a failure, not a stuck suite. */
async function cliWithin(ms: number, env: Record<string, string>, ...args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  const result = await collect(child);
  clearTimeout(timer);
  return result;
}

for (const file of ["wake.json", "machine-id", "overrides.json"])
  test(`a FIFO in place of ${file} is refused with a code, not waited on`, async (t) => {
    const home = tempDir(t);
    const stateDir = join(home, "state");
    const env = { HOME: home, PEERPOST_HOME: stateDir };
    const store = openPeerpost({ env, home });
    await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup" });
    rmSync(join(stateDir, file), { force: true });
    execFileSync("mkfifo", [join(stateDir, file)]);
    const refused = new Set<string>();
    for (const args of [["wake", "--json"], ["send", "--to", "codex:bob", "--anticipation", "reply", "--json", "hi"], ["override-policy", "codex:bob", "--json"]]) {
      const result = await cliWithin(15_000, env, ...args);
      assert.equal(result.signal, null, `peerpost ${args.join(" ")} hung on the FIFO ${file}`);
      if (result.code === 0) continue;
      const error = (JSON.parse(result.stdout) as { error: { code: string; hint?: string } }).error;
      assert.ok(["permission_denied", "state_io_error"].includes(error.code) && error.hint, `peerpost ${args.join(" ")}: ${result.stdout}`);
      refused.add(args[0]!);
    }
    assert.ok(refused.size > 0, `no command read ${file}`);
  });

test("a damaged machine-id is set aside and made anew once: every process then has the same id", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir };
  const machineOf = async () => (json(await cli(env, "health", "--json")).store as { machine: string }).machine;
  const first = await machineOf();
  // What a process killed between creating the file and writing its id left behind.
  writeFileSync(join(stateDir, "machine-id"), "");
  const machines = await Promise.all([machineOf(), machineOf(), machineOf()]);
  assert.equal(new Set(machines).size, 1, `each process a machine of its own: ${machines.join(", ")} (was ${first})`);
  assert.equal(await machineOf(), machines[0]);
  assert.equal(readFileSync(join(stateDir, "machine-id"), "utf8").trim(), machines[0]);
  assert.ok(existsSync(join(stateDir, "machine-id.damaged")));
});

test("two processes that find machine-id damaged at once end with one id: the later repair reads it again under the lock", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PATH: "/usr/bin:/bin" };
  openPeerpost({ env, home });
  const path = join(stateDir, "machine-id");
  writeFileSync(path, "", { mode: 0o600 });
  // This process has read the damaged id; as it goes for the repair's lock, another process does the whole repair.
  const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");
  const mkdir = fs.mkdirSync;
  let other: string | undefined;
  fs.mkdirSync = ((dir: string, options?: unknown) => {
    if (dir === `${path}.updating` && other === undefined) other = (JSON.parse(execFileSync(process.execPath, [CLI, "health", "--json"], { env, encoding: "utf8" })) as { store: { machine: string } }).store.machine;
    return mkdir(dir, options as Parameters<typeof mkdir>[1]);
  }) as typeof fs.mkdirSync;
  syncBuiltinESMExports();
  t.after(() => {
    fs.mkdirSync = mkdir;
    syncBuiltinESMExports();
  });
  const mine = machineId(stateDir);
  assert.ok(other, "the other process repaired it");
  assert.equal(mine, other, `the other process made ${other} and keeps it; this one made ${mine}`);
  assert.equal(readFileSync(path, "utf8").trim(), mine);
});

/** A state dir with a dormant session codex:bob (its host process has ended), which a wake would resume. */
async function withDormantSession(t: TestContext) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const project = join(home, "project");
  mkdirSync(project);
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "ana" };
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", cwd: project, source: "startup", hostPid: spawnSync("true").pid! });
  return { stateDir, env, store };
}

test("a FIFO in place of wake.json or overrides.json only skips a wake: the stored send is no failure, and doctor --json lists the problem", async (t) => {
  const { stateDir, env, store } = await withDormantSession(t);
  assert.equal((await cli(env, "wake", "on", "all")).code, 0);
  execFileSync("mkfifo", [join(stateDir, "overrides.json")]);
  const sent = await cliWithin(15_000, env, "send", "--to", "codex:bob", "--anticipation", "reply", "--json", "hi");
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  assert.match(sent.stdout, /wake_unsure.*overrides\.json/s);
  assert.equal(store.mailbox.inbox("codex:bob").length, 1, "stored once");
  rmSync(join(stateDir, "overrides.json"));
  rmSync(join(stateDir, "wake.json"));
  execFileSync("mkfifo", [join(stateDir, "wake.json")]);
  const doctor = json(await cliWithin(15_000, env, "doctor", "--json")) as { problems?: Array<{ problem: string }>; wake?: { switchesError?: { code: string } } };
  assert.ok(doctor.problems?.some((entry) => /wake\.json/.test(entry.problem)), JSON.stringify(doctor).slice(0, 400));
  assert.ok(doctor.wake?.switchesError?.code);
});

test("a damaged wake.json or overrides.json is refused with a hint, not read as none: a switch turned off stays off, and no change writes over it", async (t) => {
  const { stateDir, env } = await withDormantSession(t);
  // Typing into `peerpost run` is on by default: the person turned it off, and waking on.
  assert.equal((await cli(env, "push", "off", "pty")).code, 0);
  assert.equal((await cli(env, "wake", "on", "all")).code, 0);
  const switchesPath = join(stateDir, "wake.json");
  // Cut short, as a hand edit or a damaged disk leaves it.
  const damagedSwitches = readFileSync(switchesPath, "utf8").slice(0, 20);
  writeFileSync(switchesPath, damagedSwitches);

  const push = await cli(env, "push", "--json");
  assert.notEqual(push.code, 0, `read as no switches, pty typing is on again: ${push.stdout}`);
  const refusal = (JSON.parse(push.stdout) as { error: { code: string; details: { reason: string }; hint: string } }).error;
  assert.equal(refusal.code, "state_io_error");
  assert.equal(refusal.details.reason, "damaged");
  assert.match(refusal.hint, /wake\.json\.damaged/);
  assert.notEqual((await cli(env, "wake", "off", "codex", "--json")).code, 0);
  assert.equal(readFileSync(switchesPath, "utf8"), damagedSwitches, "a change wrote over the damaged file");

  // Sends and listings go on; no session is woken meanwhile, and health says why.
  const sent = await cli(env, "send", "--to", "codex:bob", "--anticipation", "reply", "--json", "hi");
  assert.equal(sent.code, 0, sent.stdout);
  assert.match(sent.stdout, /wake_unsure.*wake\.json/s);
  const agents = await cli(env, "agents", "--all", "--json");
  assert.equal(agents.code, 0, agents.stdout);
  assert.equal((json(agents).sessions as Array<{ wake: boolean }>)[0]?.wake, false);
  const health = await cli(env, "health", "--json");
  assert.equal(health.code, 1);
  assert.ok((json(health).warnings as Array<{ code: string }>).some((warning) => warning.code === "wake_switches_refused"), health.stdout);
  assert.match((await cli(env, "health")).stdout, /wake {7}off: its switches cannot be read/);

  // overrides.json: a policy is not dropped by the next change either.
  writeFileSync(switchesPath, "{}");
  assert.equal((await cli(env, "override-policy", "codex:bob", "--model", "user:ana", "--json")).code, 0);
  const overridesPath = join(stateDir, "overrides.json");
  writeFileSync(overridesPath, '{"v":1,"policies":[]}');
  const changed = await cli(env, "override-policy", "codex:bob", "--effort", "user:ana", "--json");
  assert.equal((JSON.parse(changed.stdout) as { error: { details: { reason: string } } }).error.details.reason, "damaged", changed.stdout);
  assert.equal(readFileSync(overridesPath, "utf8"), '{"v":1,"policies":[]}');
  // Every wake and launch is refused meanwhile: health warns, doctor names it with the fix.
  const refused = json(await cli(env, "health", "--json")).warnings as Array<{ code: string; message: string }>;
  assert.match(refused.find((warning) => warning.code === "wake_overrides_refused")?.message ?? "", /overrides\.json[^]*No session is woken until it is fixed/, JSON.stringify(refused));
  const doctor = json(await cli(env, "doctor", "--json")) as { problems: Array<{ problem: string; fix: string }> };
  assert.ok(doctor.problems.some((problem) => /overrides\.json/.test(problem.problem)), JSON.stringify(doctor.problems));
});
