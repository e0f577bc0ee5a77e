// Text another session's host or another agent wrote (a session's title and working dir, a task's title and
// note) reaches a model through the tools with its invisible, bidi and control characters made visible, as
// `agents` shows a title: in `resolve` and `task` too (a bidi override, ESC, tag characters that hide text
// from a person reading the transcript but not from the model).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect } from "./helpers/mcp.js";

const RAW = /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]|\u{E0041}/u;

test("resolve shows a session's title and working dir escaped, as agents does", async (t) => {
  const home = tempDir(t);
  const copilotHome = join(home, "copilot");
  const session = join(copilotHome, "session-state", "good-1");
  mkdirSync(session, { recursive: true });
  writeFileSync(join(session, "workspace.yaml"), 'id: good-1\ncwd: "/work/\\u202eevil"\nname: "evil\\u001b[2J title\\u202e"\n');
  writeFileSync(join(session, "events.jsonl"), "{}\n");
  const none = join(home, "none");
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), COPILOT_HOME: copilotHome, CLAUDE_CONFIG_DIR: none, CODEX_HOME: none, GROK_HOME: none, PEERPOST_ADDRESS: "claude:me" };
  const me = await connect(t, env);
  await me.client.listTools();
  const listed = (await me.call("agents", { includeUnseen: true })).unseen as Array<{ title: string; cwd: string }>;
  assert.equal(listed[0]!.title, "evil⟨U+001B⟩[2J title⟨U+202E⟩", "agents escapes the title (the intended behaviour)");
  const found = await me.call("resolve", { query: "evil" });
  const candidates = found.candidates as Array<{ address: string; title?: string; cwd?: string; reasons: string[] }>;
  assert.equal(candidates[0]!.address, "copilot:good-1");
  assert.deepEqual(
    candidates.flatMap((candidate) => [candidate.title, candidate.cwd, ...candidate.reasons].filter((text): text is string => text !== undefined && RAW.test(text))),
    [],
    JSON.stringify(candidates[0]),
  );
});

test("task list shows a task's title and note escaped", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const alice = await connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" });
  const bob = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" });
  await alice.client.listTools();
  const { id } = (await alice.call("task", { action: "create", title: "fix \u001b[2J it\u202e" })).task as { id: string };
  assert.equal((await bob.call("task", { action: "claim", id })).ok, true);
  assert.equal((await bob.call("task", { action: "update", id, status: "done", note: "done \u202e\u{E0041}\u{E0042} ok" })).ok, true);
  const tasks = (await alice.call("task", { action: "list" })).tasks as Array<{ title: string; note?: string }>;
  assert.deepEqual(tasks.flatMap((task) => [task.title, task.note ?? ""]).filter((text) => RAW.test(text)), []);
});
