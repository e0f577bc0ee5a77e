// One damaged file in a host's session store breaks no command that reads the stores: a Grok
// summary.json that is valid JSON but no object (`null`) is skipped, and `agents --all`, `sessions list`,
// `resolve` and a send to an address not registered yet go on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";

test("a Grok summary.json that is valid JSON but not an object is skipped, not a crash", async (t) => {
  const home = tempDir(t);
  const grokHome = join(home, "grok");
  for (const [id, text] of [["g-null", "null"], ["g-num", "7"], ["g-str", '"x"']] as const) {
    mkdirSync(join(grokHome, "sessions", "proj", id), { recursive: true });
    writeFileSync(join(grokHome, "sessions", "proj", id, "summary.json"), text);
  }
  const good = join(grokHome, "sessions", "proj", "g-good");
  mkdirSync(good);
  writeFileSync(join(good, "summary.json"), JSON.stringify({ info: { id: "g-good", cwd: "/work/g" }, generated_title: "fine" }));
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_USER: "pat", GROK_HOME: grokHome, CLAUDE_CONFIG_DIR: join(home, "none"), CODEX_HOME: join(home, "none"), COPILOT_HOME: join(home, "none") };

  const listed = await cli(env, "agents", "--all", "--json");
  assert.equal(listed.code, 0, listed.stdout + listed.stderr);
  assert.deepEqual((json(listed).unseen as Array<{ address: string }>).map((row) => row.address), ["grok:g-good"]);
  const sessions = await cli(env, "sessions", "list", "--json");
  assert.equal(sessions.code, 0, sessions.stdout + sessions.stderr);
  const sent = await cli(env, "send", "--to", "grok:g-good", "--json", "hi");
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  const unknown = await cli(env, "send", "--to", "codex:nobody", "--json", "hi");
  assert.equal((json(unknown).error as { code: string }).code, "not_found", unknown.stdout + unknown.stderr);
});
