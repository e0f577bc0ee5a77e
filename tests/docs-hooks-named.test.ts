// Each host's docs name every hook its plugin declares: one who trusts only the hooks a README names (Codex
// asks for each) would leave the claims check (PreToolUse) off.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./helpers/mcp.js";

const read = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");
const declared = (host: string) => Object.keys((JSON.parse(read(`dist/${host}/hooks/hooks.json`)) as { hooks: Record<string, unknown> }).hooks);
const WORDS: Record<number, string> = { 3: "three", 4: "four", 5: "five" };

test("the Codex and Claude Code READMEs and docs/hosts.md name every hook the plugin declares", () => {
  for (const [host, readme] of [["codex", "plugins/codex/README.md"], ["claude-code", "plugins/claude-code/README.md"]] as const) {
    const events = declared(host);
    const text = read(readme);
    for (const event of events) assert.ok(text.includes(event), `${readme} never names the ${event} hook the ${host} plugin declares (${events.join(", ")})`);
    // "three hooks" where the plugin has four tells the person to trust too few.
    for (const [count, word] of Object.entries(WORDS))
      if (Number(count) !== events.length) assert.doesNotMatch(text, new RegExp(`\\b${word} hooks\\b`, "i"), `${readme} says "${word} hooks"; the ${host} plugin declares ${events.length}: ${events.join(", ")}`);
  }
  const hosts = read("docs/hosts.md");
  for (const [host, row] of [["codex", "| Codex |"], ["claude-code", "| Claude Code |"], ["copilot", "| Copilot CLI |"]] as const) {
    const line = hosts.split("\n").find((text) => text.startsWith(row))!;
    for (const event of declared(host)) assert.ok(line.includes(event), `docs/hosts.md's ${host} row does not name its ${event} hook:\n${line}`);
  }
});
