// docs/tools.md names every tool the MCP server offers (role with PEERPOST_ROLE_ADMIN=1 too) and every
// error code a tool can return, so the page a reader trusts is the server's own list.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect, REPO_ROOT } from "./helpers/mcp.js";
import { tempDir } from "./helpers/temp.js";
import { ERROR_CODES } from "../core/common/errors.js";

const page = readFileSync(join(REPO_ROOT, "docs/tools.md"), "utf8");

test("docs/tools.md's table lists every tool the server offers", async (t) => {
  const home = tempDir(t);
  const session = await connect(t, { HOME: home, PEERPOST_HOME: join(home, "state"), PEERPOST_ADDRESS: "claude:reader", PEERPOST_ROLE_ADMIN: "1" });
  const offered = (await session.client.listTools()).tools.map((tool) => tool.name);
  assert.ok(offered.length >= 17, offered.join(", "));
  const listed = [...page.matchAll(/^\| `([a-z_]+)` \|/gm)].map((match) => match[1]!);
  assert.deepEqual([...listed].sort(), [...offered].sort());
});

test("docs/tools.md names every error code", () => {
  const line = page.split("\n").find((text) => text.includes("Error codes:")) ?? "";
  assert.deepEqual(ERROR_CODES.filter((code) => !line.includes(`\`${code}\``)), []);
});
