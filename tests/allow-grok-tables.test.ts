// `peerpost allow grok` leaves alone a config.toml that already has a `[permission]` table, however TOML
// spells it: a header with a comment (`[permission] # mine`) or spaces inside the brackets is the same
// table, and a second one would make the file invalid TOML, which the pinned Grok then ignores whole, the
// person's own deny rules included.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI } from "./helpers/mcp.js";
import { collect } from "./helpers/children.js";
import { grokUnavailable, makeGrokHome, runGrok } from "./helpers/grok-cli.js";

const unavailable = grokUnavailable();

for (const header of ["[permission] # my own rules", "[ permission ]"]) {
  test(`allow grok over a config whose ${JSON.stringify(header)} table denies rm: Grok still loads the person's rules`, { skip: unavailable ? `grok CLI unavailable: ${unavailable}` : false, timeout: 120_000 }, async (t) => {
    const grok = makeGrokHome({ apiBaseUrl: "http://127.0.0.1:9/v1" });
    t.after(() => grok.cleanup());
    const env = { ...grok.env, PEERPOST_HOME: join(grok.root, "state") };
    writeFileSync(join(grok.grokHome, "config.toml"), `${header}\ndeny = ["Bash(rm:*)"]\n`);
    const inspect = async () => {
      const ran = await runGrok(["inspect"], { env, cwd: grok.workDir, timeoutMs: 60_000 });
      return ran.stdout + ran.stderr;
    };
    assert.match(await inspect(), /Permissions\n\s*└ Source: \S+config\.toml \(config\)\n\s*└ 1 loaded/, "Grok loads the person's deny rule");
    const allowed = await collect(spawn(process.execPath, [CLI, "allow", "grok"], { env, stdio: ["ignore", "pipe", "pipe"] }));
    const after = await inspect();
    assert.doesNotMatch(after, /syntax errors/, `after peerpost allow grok (exit ${allowed.code}: ${allowed.stdout}${allowed.stderr}) Grok cannot parse its config:\n${after.split("\n").filter((line) => /ERROR|Permissions|loaded/.test(line)).slice(0, 4).join("\n")}`);
    assert.doesNotMatch(after, /0 loaded/, "the person's deny rule still holds");
  });
}
