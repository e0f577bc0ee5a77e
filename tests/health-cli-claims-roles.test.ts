// `peerpost health` is the `health` tool's report for people: it counts claims that ran past their TTL and
// that nobody released (a warning), and shows the role enforcement in
// force and where it came from, as the tool does (docs/claims-and-tasks.md, docs/roles.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliIn, json } from "./helpers/cli.js";
import { tempRepo } from "./helpers/repo.js";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";

test("peerpost health reports a claim that ran past its TTL unreleased, as the health tool does", async (t) => {
  const repo = tempRepo(t);
  const home = tempDir(t);
  const base = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ann" };
  const start = Date.parse("2026-01-05T10:00:00Z");
  const later = { ...base, PEERPOST_NOW: String(start + 3_600_000) };
  assert.equal((await cliIn(repo, { ...base, PEERPOST_NOW: String(start) }, "claim", "--ttl", "1m", "a.txt")).code, 0);

  // The tool: the count and the warning.
  const tool = await connect(t, { ...later, PEERPOST_ADDRESS: "claude:looker" });
  const report = await tool.call("health");
  assert.deepEqual(report.claims, { standing: 0, expiredUnreleased: 1 });
  assert.ok((report.warnings as Array<{ code: string }>).some((warning) => warning.code === "claims_expired"));

  // The command line: the same report "for people".
  const health = json(await cliIn(repo, later, "health", "--json")) as { warnings: Array<{ code: string }> };
  assert.ok(health.warnings.some((warning) => warning.code === "claims_expired"), `peerpost health --json warnings: ${JSON.stringify(health.warnings)}`);
  const text = await cliIn(repo, later, "health");
  assert.match(text.stdout, /claims_expired: 1 claims ran past their TTL/, text.stdout);
});

test("peerpost health --json shows role enforcement and where it came from, as docs/roles.md shows", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "ann", PEERPOST_ROLE_ENFORCEMENT: "warn" };
  const health = json(await cliIn(home, env, "health", "--json"));
  assert.deepEqual(health.roles, { enforcement: "warn", source: "PEERPOST_ROLE_ENFORCEMENT" }, `peerpost health --json keys: ${Object.keys(health).join(", ")}`);
});
