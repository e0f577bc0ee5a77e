// `peerpost allow codex`: `approval_mode = "approve"` for each of peerpost's tools, per tool, under the
// plugin's server in config.toml (`[plugins."peerpost@peerpost".mcp_servers.peerpost.tools.<tool>]`),
// the per-tool key Codex 0.171.0 accepts beside `default_tools_approval_mode` (plugins/codex/README.md).
import { join } from "node:path";
import type { AllowEdit } from "../shared/allow-file.js";
import { CODEX_PLUGIN_ID, codexHome } from "./inspect.js";
import { readTomlTables } from "../shared/toml-tables.js";

const MARK = "# peerpost allow codex: peerpost's own tools run without asking (`peerpost allow --undo codex` removes this)";
const APPROVE = 'approval_mode = "approve"';

function table(tool: string): string {
  return `[plugins."${CODEX_PLUGIN_ID}".mcp_servers.peerpost.tools.${tool}]`;
}

/** A table header peerpost writes, for any tool (an earlier release's tools included). */
const OUR_TABLE = /^\[plugins\."peerpost@peerpost"\.mcp_servers\.peerpost\.tools\.[A-Za-z0-9_-]+\]$/;

/** The tools whose table the file already defines (by a header or by dotted keys): TOML forbids defining one twice. */
function defined(text: string | undefined, tools: string[]): Set<string> {
  const tables = readTomlTables(text ?? "");
  return new Set(tools.filter((tool) => tables.has(["plugins", CODEX_PLUGIN_ID, "mcp_servers", "peerpost", "tools", tool].join("\u0000"))));
}

export function codexAllowEdit(env: NodeJS.ProcessEnv, tools: string[]): AllowEdit {
  return {
    host: "codex",
    file: join(codexHome(env), "config.toml"),
    rules: tools.map(table),
    isSet: (text) => text !== undefined && defined(text, tools).size === tools.length,
    // Only the tools without a table yet: a person's own table for one stays as it is (and wins).
    add(text) {
      const present = defined(text, tools);
      const block = [MARK, ...tools.filter((tool) => !present.has(tool)).flatMap((tool) => [table(tool), APPROVE])].join("\n");
      return `${text === undefined || text === "" ? "" : text.endsWith("\n") ? `${text}\n` : `${text}\n\n`}${block}\n`;
    },
    // Only what peerpost wrote: each marked block, up to the first line that is not one of its tables.
    remove(text) {
      const lines = text.split("\n");
      const kept: string[] = [];
      for (let i = 0; i < lines.length; i++) {
        if (lines[i] !== MARK) {
          kept.push(lines[i]!);
          continue;
        }
        while (i + 2 < lines.length && OUR_TABLE.test(lines[i + 1] ?? "") && lines[i + 2] === APPROVE) i += 2;
        // The blank line add put before the block goes with it.
        if (kept.length > 0 && kept[kept.length - 1] === "") kept.pop();
      }
      return kept.join("\n");
    },
  };
}
