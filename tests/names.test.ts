// Session names and resolve: `peerpost name`, `agents` showing names, ranking with reasons through the
// CLI and the MCP tool, never a silent pick; bad names change nothing stored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";
import { openPeerpost } from "../core/peerpost.js";

interface Candidate {
  address: string;
  score: number;
  reasons: string[];
}

async function machine(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "pat" };
  const minute = 60_000;
  // Each registration is dated by the clock the store was opened with: a minute apart, oldest first.
  let offset = 0;
  const store = openPeerpost({ env, home, now: () => Date.now() + offset });
  const sessions = [
    { host: "codex", address: "codex:019a-api", sessionId: "019a-api", cwd: "/work/api-server", at: -3 * minute },
    { host: "claude-code", address: "claude:7f3e-web", sessionId: "7f3e-web", cwd: "/work/web", at: -2 * minute },
    { host: "claude-code", address: "claude:8a1b-api-docs", sessionId: "8a1b-api-docs", cwd: "/work/api-docs", at: -1 * minute },
  ] as const;
  for (const session of sessions) {
    const { at, ...record } = session;
    offset = at;
    await store.sessions.register({ ...record, source: "startup" });
  }
  return { home, stateDir, env };
}

test("name a session, see it in agents, and resolve ranks by name, working dir and host with reasons", async (t) => {
  const { env } = await machine(t);
  const named = await cli(env, "name", "codex:019a-api", "API server", "--json");
  assert.equal(named.code, 0, named.stderr);
  const agents = json(await cli(env, "agents", "--all", "--json")).sessions as Array<{ address: string; name?: string }>;
  assert.equal(agents.find((session) => session.address === "codex:019a-api")!.name, "API server");
  assert.deepEqual(agents.map((session) => session.address), ["claude:8a1b-api-docs", "claude:7f3e-web", "codex:019a-api"], "naming is not being seen: order stays by last activity");

  const byName = json(await cli(env, "resolve", "api", "server", "--json")).candidates as Candidate[];
  assert.equal(byName[0]!.address, "codex:019a-api");
  assert.ok(byName[0]!.reasons.includes('name starts with "api"'), JSON.stringify(byName[0]));
  assert.ok(byName.some((candidate) => candidate.address === "claude:8a1b-api-docs"), "every match is listed, not only the best");
  assert.ok(!byName.some((candidate) => candidate.address === "claude:7f3e-web"));

  const byHost = json(await cli(env, "resolve", "claude", "--json")).candidates as Candidate[];
  assert.deepEqual(byHost.map((candidate) => candidate.address), ["claude:8a1b-api-docs", "claude:7f3e-web"], "a tie is ordered by recency and both are shown");
  assert.ok(byHost.every((candidate) => candidate.reasons.includes("host is claude-code")));
  const byDir = json(await cli(env, "resolve", "web", "--json")).candidates as Candidate[];
  assert.deepEqual(byDir[0]!.reasons.slice(0, 1), ['working dir is "web"']);

  const server = await connect(t, { ...env, PEERPOST_ADDRESS: "grok:me" });
  const tool = await server.call("resolve", { query: "api-docs" });
  assert.equal((tool.candidates as Candidate[])[0]!.address, "claude:8a1b-api-docs");
  // message still takes only exact addresses: a name is not one.
  const refused = await server.call("message", { to: "API server", message: "hi" });
  assert.equal((refused.error as { code: string }).code, "invalid_arguments");
  const human = await cli(env, "agents", "--all");
  assert.match(human.stdout, /codex:019a-api\s+API server\s+codex/);
});

test("bad names and unknown addresses get a clear error and leave the sessions registry unchanged", async (t) => {
  const { stateDir, env } = await machine(t);
  const registry = join(stateDir, "sessions.jsonl");
  const before = readFileSync(registry);
  const cases: Array<[string[], string]> = [
    [["name", "codex:019a-api", "../../etc/passwd"], "invalid_arguments"],
    [["name", "codex:019a-api", "a/b"], "invalid_arguments"],
    [["name", "codex:019a-api", "bell\u0007"], "invalid_arguments"],
    [["name", "codex:019a-api", "line\nbreak"], "invalid_arguments"],
    [["name", "codex:unknown", "fine name"], "not_found"],
    [["name", "role:reviewer", "fine name"], "invalid_arguments"],
    [["name", "not-an-address", "fine name"], "invalid_arguments"],
  ];
  for (const [args, code] of cases) {
    const result = await cli(env, ...args, "--json");
    assert.equal(result.code, 1, args.join(" "));
    assert.equal((json(result).error as { code: string }).code, code, args.join(" "));
  }
  assert.deepEqual(readFileSync(registry), before);
});

// A session known only from its host's files is registered by naming it, as a message to it would be.
test("a session listed from its host's files (seen: false) can be named, and resolve then finds it by that name", async (t) => {
  const home = tempDir(t);
  const codexHome = join(home, "codex");
  const id = "019aaaaa-1111-7000-8000-000000000001";
  const day = join(codexHome, "sessions", "2026", "12", "07");
  mkdirSync(day, { recursive: true });
  // The first line of a Codex rollout, as Codex 0.171.0 writes it.
  writeFileSync(join(day, `rollout-2026-12-07T00-00-00-${id}.jsonl`), JSON.stringify({ timestamp: new Date().toISOString(), type: "session_meta", payload: { id, cwd: "/work/api" } }) + "\n");
  const none = join(home, "none");
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat", CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: none, COPILOT_HOME: none, GROK_HOME: none };

  const listed = json(await cli(env, "resolve", "api", "--json")).candidates as Array<{ address: string; seen: boolean }>;
  assert.deepEqual(listed.map(({ address, seen }) => ({ address, seen })), [{ address: `codex:${id}`, seen: false }]);

  const named = await cli(env, "name", `codex:${id}`, "api", "server", "--json");
  assert.equal(named.code, 0, named.stdout + named.stderr);
  const found = json(await cli(env, "resolve", "api server", "--json")).candidates as Array<{ address: string; name?: string }>;
  assert.equal(found[0]!.address, `codex:${id}`);
  assert.equal(found[0]!.name, "api server");
});

// A person's finished mail that a compaction archived still makes the person known: no typo warning.
test("a person with mail in the archive is not reported as unknown after compaction", async (t) => {
  const home = tempDir(t);
  const base = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat" };
  const at = (iso: string) => ({ ...base, PEERPOST_NOW: iso });
  const warningCodes = (result: Awaited<ReturnType<typeof cli>>) => (json(result).warnings as Array<{ code: string }>).map((warning) => warning.code);

  const first = await cli(at("2026-01-01T00:00:00Z"), "send", "--to", "user:bob", "--anticipation", "reply", "--json", "can you look at the build?");
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(warningCodes(first), ["unknown_person"], "the first message to bob: a typo is possible");
  const id = json(first).messageId as string;
  // bob marks it done: the request is finished.
  const done = await cli(at("2026-01-01T01:00:00Z"), "reply", id, "--as", "user:bob", "--done", "--json");
  assert.equal(done.code, 0, done.stderr);

  // Past the retention (30 days), compaction moves the finished mail to the archive.
  const compacted = await cli(at("2026-03-01T00:00:00Z"), "compact", "--json");
  assert.equal(compacted.code, 0, compacted.stderr);
  const later = await cli(at("2026-03-01T00:01:00Z"), "send", "--to", "user:bob", "--json", "one more question");
  assert.equal(later.code, 0, later.stderr);
  assert.deepEqual(warningCodes(later), [], "bob has had mail (now in the archive): still known, no unknown_person warning");
});
