// Hints a model reads after a tool call name tools and arguments, not the command line's flags and
// commands (hints.ts keeps a model and a CLI text for each that differs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";

/** A hint in a model's terms: no `--flag`, and no `peerpost` command for what a tool it has does. */
function cliTerms(hint: string): string[] {
  return [...hint.matchAll(/(?:^|[\s(`])(--[a-z][a-z-]*)|`(peerpost (?:task list|roles|agents))`/g)].map((match) => match[1] ?? match[2]!);
}

test("hints of fork, task and role refusals name tools and arguments, not the CLI's commands and flags", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice", PEERPOST_ROLE_ADMIN: "1" }, undefined, undefined, home);
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
  const carol = await connect(t, { ...env, PEERPOST_ADDRESS: "grok:carol" });
  const task = (await alice.call("task", { action: "create", title: "first" })).task as { id: string };
  assert.equal((await bob.call("task", { action: "claim", id: task.id })).ok, true);

  const refusals: Record<string, Record<string, unknown>> = {
    "fork with cwd (a Claude Code session)": await alice.call("fork", { address: "claude:alice", message: "try it", cwd: join(home, "state") }),
    "task claim taken by another": await carol.call("task", { action: "claim", id: task.id }),
    "role clear, nobody holds it": await alice.call("role", { role: "reviewer" }),
    "role given to a role": await alice.call("role", { role: "reviewer", holder: "role:lead" }),
  };
  const found: string[] = [];
  for (const [label, result] of Object.entries(refusals)) {
    const error = result.error as { code: string; hint?: string } | undefined;
    assert.ok(error, `${label}: ${JSON.stringify(result)}`);
    const terms = cliTerms(error.hint ?? "");
    if (terms.length > 0) found.push(`${label} (${error.code}): ${JSON.stringify(error.hint)} says ${terms.join(", ")}`);
  }
  assert.deepEqual(found, []);
});
