// `peerpost allow codex` leaves a config.toml Codex still loads: it adds a
// `[plugins."peerpost@peerpost".mcp_servers.peerpost.tools.<tool>]` table only for the tools that have none
// yet. One already in the file (a person's own, as the Codex README describes the key, or the block an
// earlier peerpost wrote before it had its newest tool) defined twice is invalid TOML, and Codex would not
// start at all. Checked with the pinned `codex`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { codexBinary } from "./helpers/codex-cli.js";

function world(t: Parameters<typeof tempDir>[0]) {
  const base = tempDir(t, "peerpost-allow-codex-");
  const env = { PATH: process.env.PATH ?? "", HOME: join(base, "home"), PEERPOST_HOME: join(base, "state"), CODEX_HOME: join(base, "codex") };
  mkdirSync(env.HOME);
  mkdirSync(env.CODEX_HOME);
  const config = join(env.CODEX_HOME, "config.toml");
  const run = async (...args: string[]) => {
    const done = await collect(spawn(process.execPath, [CLI, ...args, "--json"], { env, stdio: ["ignore", "pipe", "pipe"] }));
    return { code: done.code, result: JSON.parse(done.stdout || done.stderr) as Record<string, unknown> };
  };
  /** Whether the pinned Codex still loads its configuration. */
  const codexLoads = async () => {
    const loaded = await collect(spawn(codexBinary()!, ["mcp", "list"], { env: { PATH: process.env.PATH ?? "", HOME: env.HOME, CODEX_HOME: env.CODEX_HOME }, stdio: ["ignore", "pipe", "pipe"] }));
    return { ok: loaded.code === 0, stderr: loaded.stderr.split("\n").slice(0, 8).join("\n") };
  };
  return { config, run, codexLoads, stateDir: env.PEERPOST_HOME };
}

const TABLE = (tool: string) => `[plugins."peerpost@peerpost".mcp_servers.peerpost.tools.${tool}]`;

test("allow codex beside a person's own table for one of peerpost's tools leaves a config Codex loads", { skip: codexBinary() ? false : "codex CLI not installed" }, async (t) => {
  const { config, run, codexLoads } = world(t);
  // The person asked to be prompted before replies (the per-tool key the Codex README names).
  writeFileSync(config, `model = "gpt-5.1"\n\n${TABLE("reply")}\napproval_mode = "prompt"\n`);
  assert.ok((await codexLoads()).ok, "Codex loads the person's config");
  const added = await run("allow", "codex");
  assert.equal(added.code, 0, JSON.stringify(added));
  const text = readFileSync(config, "utf8");
  const loads = await codexLoads();
  assert.ok(loads.ok, `Codex no longer starts after peerpost allow codex:\n${loads.stderr}\n--- config.toml has ${text.split(TABLE("reply")).length - 1} ${TABLE("reply")} tables`);
});

test("allow codex after an upgrade that added a tool leaves a config Codex loads", { skip: codexBinary() ? false : "codex CLI not installed" }, async (t) => {
  const { config, run, codexLoads, stateDir } = world(t);
  writeFileSync(config, 'model = "gpt-5.1"\n');
  assert.equal((await run("allow", "codex")).result.outcome, "added");
  // What the previous release wrote: the same block without its newest tool's table (the last one), and
  // its undo record.
  const written = readFileSync(config, "utf8");
  const older = written.slice(0, written.lastIndexOf("[plugins."));
  writeFileSync(config, older);
  const undoFile = join(stateDir, "allow.json");
  const undo = JSON.parse(readFileSync(undoFile, "utf8")) as Record<string, { after: string }>;
  undo["codex"]!.after = older;
  writeFileSync(undoFile, JSON.stringify(undo));
  assert.ok((await codexLoads()).ok, "Codex loads the older block");
  // After the upgrade the person runs the command again, as the docs say for a new tool.
  const again = await run("allow", "codex");
  assert.equal(again.code, 0, JSON.stringify(again));
  const loads = await codexLoads();
  assert.ok(loads.ok, `Codex no longer starts after peerpost allow codex:\n${loads.stderr}`);
  // And undo takes out everything peerpost added, the older release's tables too.
  assert.equal((await run("allow", "--undo", "codex")).code, 0);
  assert.equal(readFileSync(config, "utf8"), 'model = "gpt-5.1"\n', "undo leaves none of peerpost's tables");
});
