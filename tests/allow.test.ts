// `peerpost allow <host>`: exactly peerpost's tools on the host's allow list, in the host's own file;
// `--undo` restores the file byte for byte, or removes only peerpost's entries when it was edited since.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { codexBinary } from "./helpers/codex-cli.js";

function world(t: Parameters<typeof tempDir>[0]) {
  const base = tempDir(t, "peerpost-allow-");
  const env = { PATH: process.env.PATH ?? "", HOME: join(base, "home"), PEERPOST_HOME: join(base, "state"), CLAUDE_CONFIG_DIR: join(base, "claude"), CODEX_HOME: join(base, "codex") };
  mkdirSync(env.HOME);
  const run = async (...args: string[]) => {
    const done = await collect(spawn(process.execPath, [CLI, ...args, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
    return { code: done.code, result: JSON.parse(done.stdout || done.stderr) as Record<string, unknown> };
  };
  return { env, run };
}

test("allow claude-code: adds mcp__plugin_peerpost_peerpost to permissions.allow; undo restores the file exactly", async (t) => {
  const { env, run } = world(t);
  const settings = join(env.CLAUDE_CONFIG_DIR, "settings.json");
  mkdirSync(env.CLAUDE_CONFIG_DIR);
  const original = '{\n    "model": "opus",\n    "permissions": { "allow": ["Bash(ls:*)"] }\n}\n';
  writeFileSync(settings, original);
  const added = await run("allow", "claude-code");
  assert.equal(added.code, 0, JSON.stringify(added));
  assert.equal(added.result.outcome, "added");
  const parsed = JSON.parse(readFileSync(settings, "utf8")) as { model: string; permissions: { allow: string[] } };
  assert.deepEqual(parsed.permissions.allow, ["Bash(ls:*)", "mcp__plugin_peerpost_peerpost"], "exactly peerpost's rule, beside the person's own");
  assert.equal(parsed.model, "opus");
  assert.equal((await run("allow", "claude-code")).result.outcome, "already");
  assert.equal((await run("allow", "--undo", "claude-code")).result.outcome, "restored");
  assert.equal(readFileSync(settings, "utf8"), original, "byte for byte");
  // No settings file before: undo removes the one allow made.
  writeFileSync(settings, "");
  const { rmSync } = await import("node:fs");
  rmSync(settings);
  await run("allow", "claude-code");
  assert.ok(existsSync(settings));
  await run("allow", "--undo", "claude-code");
  assert.equal(existsSync(settings), false);
  // Edited after allow: undo takes out only peerpost's rule.
  writeFileSync(settings, original);
  await run("allow", "claude-code");
  const edited = JSON.parse(readFileSync(settings, "utf8")) as Record<string, unknown>;
  writeFileSync(settings, JSON.stringify({ ...edited, theme: "dark" }));
  assert.equal((await run("allow", "--undo", "claude-code")).result.outcome, "removed");
  const after = JSON.parse(readFileSync(settings, "utf8")) as { theme: string; permissions: { allow: string[] } };
  assert.deepEqual([after.theme, after.permissions.allow], ["dark", ["Bash(ls:*)"]]);
});

test("allow codex: approval_mode approve per peerpost tool in config.toml; undo restores it exactly", async (t) => {
  const { env, run } = world(t);
  const config = join(env.CODEX_HOME, "config.toml");
  mkdirSync(env.CODEX_HOME);
  const original = 'model = "gpt-5.1"\n\n[plugins."peerpost@peerpost"]\nenabled = true\n';
  writeFileSync(config, original);
  assert.equal((await run("allow", "codex")).result.outcome, "added");
  const text = readFileSync(config, "utf8");
  assert.ok(text.startsWith(original));
  const tools = ["agents", "claim", "claims", "fork", "health", "launch", "message", "read", "receipts", "release", "reply", "resolve", "roles", "set_agent_override_policy", "status", "task", "wait"];
  for (const tool of tools) assert.ok(text.includes(`[plugins."peerpost@peerpost".mcp_servers.peerpost.tools.${tool}]\napproval_mode = "approve"`), tool);
  assert.equal((text.match(/approval_mode/g) ?? []).length, tools.length, "no other tool");
  // The pinned Codex loads the file (it refuses a config it cannot parse or whose approval_mode it does not know).
  const codex = codexBinary();
  if (codex) {
    const loaded = await collect(spawn(codex, ["mcp", "list"], { env: { PATH: process.env.PATH ?? "", HOME: env.HOME, CODEX_HOME: env.CODEX_HOME }, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal(loaded.code, 0, loaded.stderr);
  }
  assert.equal((await run("allow", "--undo", "codex")).result.outcome, "restored");
  assert.equal(readFileSync(config, "utf8"), original);
});

test("allow grok: MCPTool(peerpost__*) in [permission] allow of config.toml; undo restores it; an existing [permission] table is left alone", async (t) => {
  const { env, run } = world(t);
  const grokHome = join(env.HOME, ".grok");
  const config = join(grokHome, "config.toml");
  mkdirSync(grokHome);
  const original = '[plugins]\nenabled = ["peerpost"]\n';
  writeFileSync(config, original);
  assert.equal((await run("allow", "grok")).result.outcome, "added");
  assert.equal(readFileSync(config, "utf8"), `${original}\n# peerpost allow grok (\`peerpost allow --undo grok\` removes this)\n[permission]\nallow = ["MCPTool(peerpost__*)"]\n`);
  assert.equal((await run("allow", "--undo", "grok")).result.outcome, "restored");
  assert.equal(readFileSync(config, "utf8"), original);
  const own = '[permission]\ndeny = ["Bash(rm -rf *)"]\n';
  writeFileSync(config, own);
  const refused = await run("allow", "grok");
  assert.equal(refused.code, 1);
  assert.match(String((refused.result.error as { message: string }).message), /already has a \[permission\] table/);
  assert.equal(readFileSync(config, "utf8"), own, "nothing written");
});

test("allow copilot: unsupported, with the flag to use instead; nothing written", async (t) => {
  const { env, run } = world(t);
  const said = await run("allow", "copilot");
  assert.equal(said.code, 1);
  assert.equal((said.result.error as { code: string }).code, "unsupported");
  assert.match(String((said.result.error as { hint: string }).hint), /--allow-tool=peerpost/);
  assert.equal(existsSync(join(env.HOME, ".copilot")), false);
});
