// Every tool result carries `warnings: [{code, message}]`, and docs/tools.md names each code the tools
// return, so a model's user can look one up.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect, REPO_ROOT } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";

const page = readFileSync(join(REPO_ROOT, "docs/tools.md"), "utf8");

test("docs/tools.md names each warning code the tools return", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const store = openPeerpost({ env, home, create: true });
  await store.sessions.register({ host: "codex", address: "codex:gone", sessionId: "gone", cwd: home, source: "startup", hostPid: spawnSync("true").pid! });
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" }).then((bob) => bob.call("health"));
  const results = [
    await alice.call("read", { limit: "5" }),
    await alice.call("message", { to: "codex:bob", message: "hi", idempotencyKey: "k1" }),
    await alice.call("message", { to: "codex:bob", message: "hi", idempotencyKey: "k1" }),
    await alice.call("message", { to: "codex:gone", message: "hi" }),
    await alice.call("message", { to: "user:nobody-yet", message: "hi" }),
    await alice.call("message", { to: "role:reviewer", message: "hi" }),
  ];
  const codes = [...new Set(results.flatMap((result) => ((result.warnings as Array<{ code: string }> | undefined) ?? []).map((warning) => warning.code)))];
  assert.ok(codes.length >= 5, JSON.stringify(results));
  const missing = codes.filter((code) => !page.includes(`\`${code}\``));
  assert.deepEqual(missing, [], `warning codes returned by the tools but not in docs/tools.md (seen: ${codes.join(", ")})`);
});
