// What the command line answers when a newcomer asks: the wake and launch switches do what the README
// and doctor say, a missing host CLI is named with the PATH searched, `peerpost health` reports for
// people, a state dir is never built under a parent that does not exist, and Grok's hooks tell one story.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { REPO_ROOT } from "./helpers/mcp.js";
import { GROK_HOOKS } from "../plugins/grok/inspect.js";

/** A person's environment: their own HOME and state dir, and a PATH with no host CLI on it. */
function person(t: Parameters<typeof tempDir>[0]): Record<string, string> {
  const home = tempDir(t);
  return { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana" };
}

test("wake off all turns off every rule, narrower ones included, as the README and doctor say", async (t) => {
  const env = person(t);
  assert.equal((await cli(env, "wake", "on", "codex")).code, 0);
  const off = await cli(env, "wake", "off", "all");
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stdout, /cleared the narrower rules that were on: codex/);
  const listed = json(await cli(env, "wake", "--json")) as { switches: Record<string, boolean> };
  assert.deepEqual(Object.entries(listed.switches).filter(([, on]) => on), []);
  const doctor = await cli(env, "doctor");
  assert.match(doctor.stdout, /^wake .*codex off.*rules on: none/m);
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  assert.match(readme, /Turn it off with `peerpost wake off all`/);
});

test("wake on all names the narrower rules that still say off, with the command that turns each on", async (t) => {
  const env = person(t);
  assert.equal((await cli(env, "wake", "off", "grok")).code, 0);
  const on = await cli(env, "wake", "on", "all");
  assert.equal(on.code, 0, on.stderr);
  assert.match(on.stdout, /still off by a narrower rule: grok \(to wake it too: peerpost wake on grok\)/);
  assert.deepEqual((json(await cli(env, "wake", "on", "all", "--json")) as { exceptions: string[] }).exceptions, ["grok"]);
});

test("launch off says when waking is still on, and how to turn it off", async (t) => {
  const env = person(t);
  assert.equal((await cli(env, "launch", "on")).code, 0);
  assert.equal((await cli(env, "wake", "on", "claude-code")).code, 0);
  const off = await cli(env, "launch", "off");
  assert.equal(off.code, 0, off.stderr);
  assert.equal(off.stdout, "launch: off; waking is still on for claude-code (turn it off with: peerpost wake off all)\n");
  assert.equal((await cli(env, "wake", "off", "all")).code, 0);
  assert.equal((await cli(env, "launch", "off")).stdout, "launch: off\n");
});

test("launching a host whose CLI is not on PATH is host_not_found, with the PATH searched, and stores nothing", async (t) => {
  const env = person(t);
  assert.equal((await cli(env, "launch", "on")).code, 0);
  for (const host of ["codex", "claude-code"]) {
    const launched = await cli(env, "launch", "--host", host, "--cwd", env.HOME!, "--json", "run the tests");
    assert.equal(launched.code, 1, launched.stdout);
    const error = (json(launched) as { error: { code: string; details: { path: string[]; command: string }; hint: string } }).error;
    assert.equal(error.code, "host_not_found", host);
    assert.deepEqual(error.details.path, ["/usr/bin", "/bin"]);
    assert.match(error.hint, /searched: \/usr\/bin:\/bin/);
  }
  assert.equal(existsSync(join(env.PEERPOST_HOME!, "mailbox.jsonl")), false, "no message was stored for a launch that cannot run");
});

test("peerpost health prints the health report for people, and --json", async (t) => {
  const env = person(t);
  const text = await cli(env, "health");
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^peerpost \d+\.\d+\.\d+\nstore {6}file .*: reachable/);
  assert.match(text.stdout, new RegExp(`^state dir  ${env.PEERPOST_HOME} \\(PEERPOST_HOME, mode 0700\\)$`, "m"));
  assert.match(text.stdout, /^wake {7}rules on: none \(off everywhere\); launch off$/m);
  assert.match(text.stdout, /^no warnings$/m);
  const report = json(await cli(env, "health", "--json")) as { ok: boolean; state: { stateDir: { path: string } }; wake: { launch: boolean }; warnings: unknown[] };
  assert.deepEqual([report.ok, report.state.stateDir.path, report.wake.launch, report.warnings], [true, env.PEERPOST_HOME, false, []]);
});

test("a state dir whose parent does not exist is refused with a code, and nothing is created", async (t) => {
  const root = tempDir(t);
  const home = join(root, "nonexistent", "x");
  const agents = await cli({ HOME: home }, "agents", "--json");
  assert.equal(agents.code, 1);
  const error = (json(agents) as { error: { code: string; details: { reason: string; parent: string } } }).error;
  assert.deepEqual([error.code, error.details.reason, error.details.parent], ["state_io_error", "parent_missing", home]);
  assert.equal(existsSync(join(root, "nonexistent")), false);
  const configured = await cli({ HOME: root, PEERPOST_HOME: join(root, "a", "b", "state") }, "agents");
  assert.equal(configured.code, 1);
  assert.match(configured.stderr, /state_io_error: Refusing to create the peerpost state dir .*: its parent .*\/a\/b does not exist/);
  assert.equal(existsSync(join(root, "a")), false);
});

test("Grok's hooks: doctor asks for peerpost hooks install grok, then says the user-level hooks run", async (t) => {
  const env = person(t);
  const grokHome = join(env.HOME!, ".grok");
  // The state `grok plugin install` leaves: the copy's registry entry (made from the build here) and the enabled list.
  mkdirSync(join(grokHome, "installed-plugins"), { recursive: true });
  writeFileSync(join(grokHome, "installed-plugins", "registry.json"), JSON.stringify({ repos: { local: { kind: { source_path: join(REPO_ROOT, "dist/grok") }, plugins: { peerpost: { version: "0.1.0" } } } } }));
  writeFileSync(join(grokHome, "config.toml"), '[plugins]\nenabled = ["peerpost"]\n');
  const grok = (report: Record<string, unknown>) => (report.hosts as Array<{ host: string; hooks: string }>).find((host) => host.host === "grok")!;
  const fixes = (report: Record<string, unknown>) => (report.problems as Array<{ fix: string }>).map((problem) => problem.fix);

  const before = json(await cli(env, "doctor", "--json"));
  assert.equal(grok(before).hooks, GROK_HOOKS.missing);
  // `peerpost` when it is on PATH, else node and this CLI (the fix runs as pasted either way).
  assert.ok(fixes(before).some((fix) => /^(peerpost|node \S+\/dist\/cli\.cjs) hooks install grok/.test(fix)));
  assert.equal((await cli(env, "hooks", "install", "grok")).code, 0);
  const after = json(await cli(env, "doctor", "--json"));
  assert.equal(grok(after).hooks, GROK_HOOKS.installed);
  assert.ok(!fixes(after).some((fix) => fix.includes("hooks install grok")));
  const readme = readFileSync(join(REPO_ROOT, "plugins/grok/README.md"), "utf8");
  assert.match(readme.slice(readme.indexOf("### Install"), readme.indexOf("### What you get")), /grok plugin install peerpost --trust\npeerpost hooks install grok\n/);
  assert.doesNotMatch(readme, /Optional: Grok runs user-level hooks/);
});
