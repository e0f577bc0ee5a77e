// With peerpost set up in a host whose CLI is on PATH and no session started yet, `peerpost agents`,
// `peerpost status` and the web view's empty session list say to start a session there, not to install a
// host CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, startUi, uiEnv } from "./helpers/ui.js";
import { openUiPage, NO_CHROMIUM } from "./helpers/browser.js";

/** A stand-in `claude` on PATH with peerpost installed in its config dir (what `claude plugin install` leaves). */
function claudeSetUp(env: Record<string, string>): Record<string, string> {
  const bin = join(env.HOME!, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "claude"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  const configDir = join(env.HOME!, ".claude");
  mkdirSync(join(configDir, "plugins"), { recursive: true });
  writeFileSync(join(configDir, "plugins", "installed_plugins.json"), JSON.stringify({ version: 2, plugins: { "peerpost@peerpost": [{ scope: "user", version: "0.1.0" }] } }));
  return { ...env, PATH: `${bin}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: configDir, PEERPOST_USER: "ana" };
}

test("with peerpost set up in a host and no session yet, agents and status say to start a session there", async (t) => {
  const env = claudeSetUp(uiEnv(t));
  const doctor = await cli(env, "doctor", "--json");
  const claude = (JSON.parse(doctor.stdout) as { hosts: Array<{ host: string; pluginInstalled: boolean | null }> }).hosts.find((host) => host.host === "claude-code");
  assert.equal(claude?.pluginInstalled, true, "the stand-in counts as set up");
  for (const command of ["agents", "status"]) {
    const ran = await cli(env, command);
    assert.equal(ran.code, 0, ran.stderr);
    assert.doesNotMatch(ran.stdout, /install one|without peerpost/, `${command} said:\n${ran.stdout}`);
    assert.match(ran.stdout, /claude-code/, `${command} names the host to start a session in:\n${ran.stdout}`);
  }
});

test("with peerpost set up in a host and no session yet, the web view does not say to install a host CLI", { skip: NO_CHROMIUM }, async (t) => {
  const env = claudeSetUp(uiEnv(t));
  const ui = await startUi(t, { env });
  const page = await openUiPage(t, ui.url);
  const text = await page.locator("#sessions").innerText();
  assert.doesNotMatch(text, /Install a host CLI/, text);
  assert.match(text, /claude-code/, text);
});
