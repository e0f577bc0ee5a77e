// Copilot CLI writes workspace.yaml with YAML's single quotes where a value needs quoting, and a single
// quote inside is doubled (`'it''s'`). Discovery reads the values Copilot meant: a working dir
// such as `~/bob's app` (a wake and the liveness check run there) and the session's name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { cli, json } from "./helpers/cli.js";
import { copilotPrompt, copilotUnavailable, makeCopilotHome } from "./helpers/copilot-cli.js";
import { startFakeOpenAIChat } from "./helpers/fake-openai-chat.js";

test("Copilot CLI: a working dir and a name that Copilot single-quotes are read as Copilot meant them", { skip: copilotUnavailable() ?? false }, async (t) => {
  const fake = await startFakeOpenAIChat({ script: () => ({ text: "DONE" }) });
  onCleanup(t, () => fake.close());
  const home = makeCopilotHome();
  onCleanup(t, () => home.cleanup());
  const cwd = join(home.workDir, "bob's app: v2");
  mkdirSync(cwd);
  const sessionId = "6c2f3d4e-5a61-4b7c-9d8e-0f1a2b3c4d5e";
  const run = await copilotPrompt("fix what's broken", { home, provider: { baseUrl: fake.baseUrl }, sessionId, cwd });
  assert.equal(run.code, 0, run.stderr);
  const workspace = readFileSync(join(home.copilotHome, "session-state", sessionId, "workspace.yaml"), "utf8");
  assert.match(workspace, /^cwd: '.*bob''s app: v2'$/m, workspace);

  const peerHome = tempDir(t);
  const env = { HOME: peerHome, PEERPOST_HOME: join(peerHome, "state"), PEERPOST_USER: "pat", COPILOT_HOME: home.copilotHome, CLAUDE_CONFIG_DIR: join(peerHome, "none"), CODEX_HOME: join(peerHome, "none"), GROK_HOME: join(peerHome, "none") };
  const listed = await cli(env, "agents", "--all", "--json");
  assert.equal(listed.code, 0, listed.stderr);
  const rows = (json(listed).unseen as Array<{ address: string; cwd?: string; title?: string }>).map(({ address, cwd, title }) => ({ address, cwd, title }));
  assert.deepEqual(rows, [{ address: `copilot:${sessionId}`, cwd, title: "fix what's broken" }]);
});
