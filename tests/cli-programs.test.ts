// The CLI's loader (core/cli/start.ts) runs the light program (dist/cli-light.cjs) for the words
// core/cli/light-words.ts lists and the full one (dist/cli-program.cjs) for the rest: every command must
// land in a program that has it, and the light program's table must be the registry's, only shorter.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LIGHT_WORDS, programFor } from "../core/cli/light-words.js";
import { launchServer } from "../core/wake/launch.js";
import type { WakeDeps } from "../core/wake/waker.js";
import { tempDir } from "./helpers/temp.js";
import { cli } from "./helpers/cli.js";
import { CLI } from "./helpers/mcp.js";

const VERSION_WORDS = ["version", "--version", "-v"];
const CODE_CACHE = fileURLToPath(new URL("../core/common/code-cache.js", import.meta.url));

/** The command words a built program's table holds (its COMMAND_WORDS), read by running it as the loader does, for `version`. */
function commandWords(program: string): string[] {
  const script = `import { CodeCache } from ${JSON.stringify(CODE_CACHE)}; process.argv = [process.argv[0], "peerpost", "version"]; const words = new CodeCache(undefined, "test").load(${JSON.stringify(join(CLI, "..", program))}).COMMAND_WORDS; process.on("exit", () => process.stdout.write("\\n" + JSON.stringify(words)));`;
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return JSON.parse(output.trim().split("\n").pop()!) as string[];
}

test("the light program's table is the registry's, in its order, and holds exactly the words routed to it", () => {
  const full = commandWords("cli-program.cjs");
  const light = commandWords("cli-light.cjs");
  assert.ok(full.includes("serve") && full.includes("help") && full.includes("status"), full.join(" "));
  assert.deepEqual(light, full.filter((word) => light.includes(word)), "a part of the registry, in its order");
  assert.deepEqual([...LIGHT_WORDS].sort(), [...new Set([...light, ...VERSION_WORDS])].sort(), "light-words.ts routes exactly the light program's words");
  for (const word of full) assert.equal(programFor(word), light.includes(word) ? "cli-light.cjs" : "cli-program.cjs", word);
  for (const word of ["", "--help", "-h", "statuss"]) assert.equal(programFor(word), "cli-program.cjs", word);
});

test("every command's word runs a built program that has the command", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const words = commandWords("cli-program.cjs").filter((word) => word !== "version");
  const results = await Promise.all(words.map(async (word) => ({ word, result: await cli(env, word, "--help") })));
  for (const { word, result } of results) {
    assert.equal(result.code, 0, `${word}: ${result.stderr}`);
    assert.match(result.stdout, new RegExp(`peerpost ${word}\\b`), word);
  }
  for (const word of VERSION_WORDS) assert.match((await cli(env, word)).stdout, /^\d+\.\d+\.\d+\n$/, word);
});

test("the light program leaves out the MCP server and the web view: under half the full program", () => {
  const light = statSync(join(CLI, "..", "cli-light.cjs")).size;
  const full = statSync(join(CLI, "..", "cli-program.cjs")).size;
  assert.ok(light < full / 2, `light ${light} bytes, full ${full}`);
});

test("the package's bin is CommonJS, so node runs it without its ES module loader, and a launch serves from it", async (t) => {
  const pkg = JSON.parse(readFileSync(join(CLI, "..", "..", "package.json"), "utf8")) as { bin: { peerpost: string } };
  assert.match(pkg.bin.peerpost, /^dist\/cli\.cjs$/);
  const bin = join(CLI, "..", "..", pkg.bin.peerpost);
  const home = tempDir(t);
  const version = execFileSync(process.execPath, [bin, "--version"], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: join(home, "state") } });
  assert.equal(version, (await cli({ HOME: home, PEERPOST_HOME: join(home, "state") }, "--version")).stdout);
  for (const entry of [bin, CLI]) assert.deepEqual(launchServer({ runnerEntry: entry } as WakeDeps, "claude-code", home).args, [entry, "serve", "--host", "claude-code"], entry);
});
