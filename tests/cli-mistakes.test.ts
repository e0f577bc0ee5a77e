// The command line's answers to a person's slips, and the demo's first run done twice: a flag given twice,
// `--json` inside the text after `--`, text that starts with `-`, a flag the action does not read, a
// setting for a session nobody knows, raw controls from a peer in `tail --json`, and a demo that was
// stopped while it started, run from a path with a space, in a shell that points at a team's database.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { cli } from "./helpers/cli.js";
import { CLI, REPO_ROOT } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";

const DEMO = join(REPO_ROOT, "scripts/demo.mjs");
const demo = (env: Record<string, string>) => spawn(process.execPath, [DEMO], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });

function personEnv(t: import("node:test").TestContext): Record<string, string> {
  const home = tempDir(t);
  return { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ana" };
}

test("a flag given twice is a usage error, not the last one silently", async (t) => {
  const env = personEnv(t);
  const sent = await cli(env, "send", "--to", "user:bob", "--to", "user:carol", "hi");
  assert.equal(sent.code, 2);
  assert.match(sent.stderr, /--to is given twice \("user:bob" and "user:carol"\)/);
  assert.equal(openPeerpost({ env, home: env.HOME }).mailbox.inbox("user:carol").length, 0);
});

test("--json in the text after -- leaves a text-mode error on stderr; text starting with - is told how to pass it", async (t) => {
  const env = personEnv(t);
  const failed = await cli(env, "send", "--to", "codex:nobody", "--", "--json");
  assert.equal(failed.code, 1);
  assert.equal(failed.stdout, "");
  assert.match(failed.stderr, /^peerpost: not_found: /);
  const dashed = await cli(env, "send", "--to", "user:bob", "-1 from me: not merged yet");
  assert.equal(dashed.code, 2);
  assert.match(dashed.stderr, /put it after --: peerpost … -- "-1 from me: not merged yet"/);
  const passed = await cli(env, "send", "--to", "user:bob", "--", "-1 from me: not merged yet");
  assert.equal(passed.code, 0, passed.stderr);
});

test("task refuses a flag its action does not read: done with --after, claim with --body", async (t) => {
  const env = personEnv(t);
  const added = await cli(env, "task", "add", "one", "--json");
  const { id } = (JSON.parse(added.stdout) as { task: { id: string } }).task;
  const done = await cli(env, "task", "done", id, "--after", id);
  assert.equal(done.code, 2);
  assert.match(done.stderr, /--after is for add and block, not done/);
  assert.match((await cli(env, "task", "claim", id, "--body", "x")).stderr, /--body is for add, not claim/);
});

test("wake on, push on and override-policy refuse a session nobody knows, with the close ones; a role and a person pass", async (t) => {
  const env = personEnv(t);
  const store = openPeerpost({ env, home: env.HOME });
  await store.sessions.register({ host: "codex", address: "codex:0199a2f3", sessionId: "0199a2f3", source: "startup" });
  await store.backend.close();
  for (const args of [["override-policy", "codex:0199a2f4", "--model", "*"], ["wake", "on", "codex:0199a2f4"], ["push", "on", "tmux", "codex:0199a2f4"]]) {
    const refused = await cli(env, ...args, "--json");
    assert.equal(refused.code, 1, args.join(" "));
    const { error } = JSON.parse(refused.stdout) as { error: { code: string; details: { similar: string[] } } };
    assert.equal(error.code, "not_found");
    assert.deepEqual(error.details.similar, ["codex:0199a2f3"]);
  }
  assert.equal((await cli(env, "override-policy", "codex:0199a2f3", "--model", "*")).code, 0);
  assert.equal((await cli(env, "override-policy", "role:reviewer", "--model", "*")).code, 0);
  assert.equal((await cli(env, "wake", "on", "codex:0199a2f3")).code, 0);
  assert.equal((await cli(env, "wake", "off", "codex:0199a2f4")).code, 0, "turning off needs no known session");
});

test("tail --json escapes a peer's bidi and C1 controls, as every other --json output does", async (t) => {
  const env = personEnv(t);
  assert.equal((await cli(env, "send", "--to", "user:bob", "look \u202Eevil\u202C and \u009B2J here")).code, 0);
  const child = spawn(process.execPath, [CLI, "tail", "--from-start", "--json"], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = collect(child);
  onCleanup(t, async () => {
    child.kill("SIGINT");
    await exited;
  });
  let out = "";
  await new Promise<void>((resolve) => child.stdout.on("data", (chunk: Buffer) => ((out += chunk.toString("utf8")), out.includes("look") && resolve())));
  assert.doesNotMatch(out, /[\u202E\u009B]/);
  assert.match(out, /look \\u202eevil/i);
});

test("the demo runs again after a run stopped while its servers started, keeps out of a team's database, and prints a command that runs from a path with a space", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "my demo");
  const env = { HOME: home, PEERPOST_DEMO_HOME: stateDir, PEERPOST_USER: "ana", PEERPOST_STORE: "postgres://nobody@127.0.0.1:1/peerpost" };
  const first = demo(env);
  const firstDone = collect(first);
  const deadline = Date.now() + 20_000;
  while (!existsSync(join(stateDir, "sessions.jsonl")) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
  first.kill("SIGINT");
  await firstDone;
  const second = await collect(demo(env));
  assert.equal(second.code, 0, second.stderr);
  const command = second.stdout.trimEnd().split("\n").at(-1)!.trim();
  // Run as printed, in a shell, with `status --json` in place of `ui`.
  const shell = await collect(spawn("sh", ["-c", command.replace(/ ui$/, " status --json")], { env: { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_USER: "ana" }, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(shell.code, 0, `${command}\n${shell.stderr}`);
  assert.match(shell.stdout, /codex:demo-b/);
});

test("a usage mistake in wake, push, launch, hooks or ui points at that command's help; guard --repo of no directory and release of nothing say what to give", async (t) => {
  const env = personEnv(t);
  for (const args of [["wake", "on"], ["push", "on", "nowhere"], ["launch", "--cwd", env.HOME!, "hi"], ["hooks", "install"], ["ui", "--port", "99999", "--no-open"]]) {
    const mistake = await cli(env, ...args);
    assert.equal(mistake.code, 2, args.join(" "));
    assert.match(mistake.stderr, new RegExp(`Run \`peerpost help ${args[0]}\``), mistake.stderr);
  }
  const guard = await cli(env, "guard", "install", "--repo", join(env.HOME!, "nowhere"));
  assert.match(guard.stderr, /^peerpost: not_found: .*nowhere is not a directory\./);
  const release = await cli(env, "release");
  assert.equal(release.code, 2, release.stderr);
  assert.match(release.stderr, /^peerpost release: needs PATH\|GLOB… .*--all/);
  assert.match(JSON.parse((await cli(env, "version", "--json")).stdout).version, /^\d+\.\d+\.\d+/);
});

test("doctor counts an error logged in the last day as a problem, not one logged long ago", async (t) => {
  const env = personEnv(t);
  assert.equal((await cli(env, "health")).code, 0);
  const log = join(env.PEERPOST_HOME!, "logs", "errors.log");
  mkdirSync(join(env.PEERPOST_HOME!, "logs"), { recursive: true, mode: 0o700 });
  const line = (at: number, error: string) => `${JSON.stringify({ at: new Date(at).toISOString(), where: "hook", error })}\n`;
  writeFileSync(log, line(Date.now() - 365 * 86_400_000, "a lock timed out last year"), { mode: 0o600 });
  const quiet = JSON.parse((await cli(env, "doctor", "--json")).stdout) as { problems: Array<{ problem: string }> };
  assert.deepEqual(quiet.problems.filter((problem) => problem.problem.startsWith("recent error")), []);
  writeFileSync(log, line(Date.now() - 60_000, "a lock timed out a minute ago"), { mode: 0o600, flag: "a" });
  const told = JSON.parse((await cli(env, "doctor", "--json")).stdout) as { problems: Array<{ problem: string }> };
  assert.deepEqual(told.problems.filter((problem) => problem.problem.startsWith("recent error")).map((problem) => /a minute ago/.test(problem.problem)), [true]);
});
