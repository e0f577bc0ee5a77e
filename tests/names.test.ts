// Session names and resolve: `peerpost name`, `agents` showing names, ranking with reasons through the
// CLI and the MCP tool, never a silent pick; bad names change nothing stored.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
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
