// After /clear a running Claude Code process serves a new session: the web view lists the one it left as
// not running and says where the process went (leftFor), as `agents` and the tools do.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { NO_CHROMIUM, openUiPage } from "./helpers/browser.js";
import { startUi, uiEnv } from "./helpers/ui.js";
import { onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { hostStartField } from "../core/sessions/process-tree.js";

test("the page lists a session its Claude Code process left after /clear as not running, and names the session it runs now", { skip: NO_CHROMIUM }, async (t) => {
  const env = { ...uiEnv(t), PEERPOST_USER: "person" };
  const ui = await startUi(t, { env });
  const host = spawn("sleep", ["300"], { stdio: "ignore" });
  onCleanup(t, () => void host.kill());
  const record = { host: "claude-code" as const, hostPid: host.pid!, ...hostStartField(host.pid!), cwd: "/work/api", roles: [] };
  await ui.store.sessions.register({ ...record, address: "claude:old-1111", sessionId: "old-1111", source: "startup" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  await ui.store.sessions.register({ ...record, address: "claude:new-2222", sessionId: "new-2222", source: "clear" });
  const page = await openUiPage(t, ui.url);
  const row = '#sessions article[data-address="claude:old-1111"]';
  await until(async () => (await page.$(row)) !== null && (await page.$('#sessions article[data-address="claude:new-2222"]')) !== null, 10_000, "both sessions on the page");
  const text = (await page.textContent(row)) ?? "";
  assert.match(text, /not running/, text);
  assert.match(text, /claude:new-2222/, `the row of the session the process left: ${JSON.stringify(text)}`);
});
