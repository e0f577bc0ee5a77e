// The next steps an empty `peerpost agents` / `peerpost status` and the web view give agree with `doctor`:
// a host whose peerpost set-up needs a fix (a disabled plugin) is not "set up: start a session there" but
// needs that fix, and a host CLI that is on PATH is never reported as missing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, startUi, uiEnv } from "./helpers/ui.js";
import { openUiPage, NO_CHROMIUM } from "./helpers/browser.js";

function bin(env: Record<string, string>, name: string, script: string): void {
  const dir = join(env.HOME!, "bin");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), script, { mode: 0o755 });
}

function disabledClaude(base: Record<string, string>): Record<string, string> {
  bin(base, "claude", "#!/bin/sh\nexit 0\n");
  const configDir = join(base.HOME!, ".claude");
  mkdirSync(join(configDir, "plugins"), { recursive: true });
  writeFileSync(join(configDir, "plugins", "installed_plugins.json"), JSON.stringify({ version: 2, plugins: { "peerpost@peerpost": [{ scope: "user", version: "0.1.0" }] } }));
  writeFileSync(join(configDir, "settings.json"), JSON.stringify({ enabledPlugins: { "peerpost@peerpost": false } }));
  return { ...base, PATH: `${join(base.HOME!, "bin")}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: configDir, PEERPOST_USER: "ana" };
}

test("a Claude Code whose peerpost plugin is disabled is not called set up by the next steps", async (t) => {
  const env = disabledClaude(uiEnv(t));
  const doctor = await cli(env, "doctor");
  assert.match(doctor.stdout, /claude plugin enable peerpost@peerpost/, "doctor names the fix");
  for (const command of ["agents", "status"]) {
    const ran = await cli(env, command);
    assert.equal(ran.code, 0, ran.stderr);
    assert.doesNotMatch(ran.stdout, /set up in claude-code: start a session there/, `${command} said:\n${ran.stdout}`);
  }
});

test("a Grok on PATH whose peerpost plugin is disabled is not reported as no host CLI on PATH", async (t) => {
  const base = uiEnv(t);
  bin(base, "grok", `#!/bin/sh\nif [ "$1" = --version ]; then echo 'grok 1.0.41 (4220f3b224a6)'; fi\nexit 0\n`);
  const grokHome = join(base.HOME!, ".grok");
  mkdirSync(join(grokHome, "installed-plugins"), { recursive: true });
  writeFileSync(join(grokHome, "installed-plugins", "registry.json"), JSON.stringify({ repos: { peerpost: { kind: { source_path: "/nowhere" }, plugins: { peerpost: { version: "0.1.0" } } } } }));
  writeFileSync(join(grokHome, "config.toml"), "[plugins]\nenabled = []\n");
  const env = { ...base, PATH: `${join(base.HOME!, "bin")}:/usr/bin:/bin`, PEERPOST_USER: "ana" };
  const doctor = await cli(env, "doctor");
  assert.match(doctor.stdout, /grok plugin enable peerpost/, `doctor names the fix:\n${doctor.stdout}`);
  const ran = await cli(env, "agents");
  assert.equal(ran.code, 0, ran.stderr);
  assert.doesNotMatch(ran.stdout, /No host CLI .* is on PATH/, `agents said:\n${ran.stdout}`);
});

test("the web view does not call a Claude Code with a disabled peerpost plugin set up, nor say to install a host CLI", { skip: NO_CHROMIUM }, async (t) => {
  const env = disabledClaude(uiEnv(t));
  const ui = await startUi(t, { env });
  const page = await openUiPage(t, ui.url);
  const text = await page.locator("#sessions").innerText();
  assert.doesNotMatch(text, /set up in claude-code: start a session there|Install a host CLI/, text);
});
