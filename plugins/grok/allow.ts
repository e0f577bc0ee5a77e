// `peerpost allow grok`: `MCPTool(peerpost__*)` (every tool of the peerpost server, nothing else) in the
// `[permission]` table's `allow` array of `$GROK_HOME/config.toml`, the native form Grok 1.0.41's bundled
// manual documents ("The native `[permission]` section also accepts the compact allow / deny / ask
// string-array form"); verified with Grok 1.0.41 (tests/allow-grok.test.ts: read runs without asking, and
// asks again after --undo). A config that already has a `[permission]` table is left to the person: peerpost
// does not rewrite TOML it did not write.
import { join } from "node:path";
import type { AllowEdit } from "../shared/allow-file.js";
import { hostConfigDir } from "../shared/host-files.js";
import { readTomlTables } from "../shared/toml-tables.js";

export const GROK_ALLOW_RULE = "MCPTool(peerpost__*)";
const BLOCK = `# peerpost allow grok (\`peerpost allow --undo grok\` removes this)\n[permission]\nallow = ["${GROK_ALLOW_RULE}"]`;

export function grokAllowEdit(env: NodeJS.ProcessEnv): AllowEdit {
  return {
    host: "grok",
    file: join(hostConfigDir(env, "GROK_HOME", ".grok"), "config.toml"),
    rules: [GROK_ALLOW_RULE],
    isSet: (text) => text !== undefined && text.includes(`"${GROK_ALLOW_RULE}"`),
    add(text) {
      // Any way TOML defines the table (a header with a comment or spaces, dotted keys): a second one is invalid, and Grok then ignores the whole file.
      if (text !== undefined && readTomlTables(text).has("permission"))
        throw new Error(`it already has a [permission] table; add "${GROK_ALLOW_RULE}" to its allow array by hand`);
      return `${text === undefined || text === "" ? "" : text.endsWith("\n") ? `${text}\n` : `${text}\n\n`}${BLOCK}\n`;
    },
    remove: (text) => text.replace(`\n${BLOCK}\n`, "\n").replace(`${BLOCK}\n`, ""),
  };
}
