// `peerpost allow codex`: `approval_mode = "approve"` for each of peerpost's tools, per tool, under the
// plugin's server in config.toml (`[plugins."peerpost@peerpost".mcp_servers.peerpost.tools.<tool>]`),
// the per-tool key Codex 0.171.0 accepts beside `default_tools_approval_mode` (plugins/codex/README.md).
import { join } from "node:path";
import type { AllowEdit } from "../shared/allow-file.js";
import { CODEX_PLUGIN_ID, codexHome } from "./inspect.js";

const MARK = "# peerpost allow codex: peerpost's own tools run without asking (`peerpost allow --undo codex` removes this)";

function table(tool: string): string {
  return `[plugins."${CODEX_PLUGIN_ID}".mcp_servers.peerpost.tools.${tool}]`;
}

export function codexAllowEdit(env: NodeJS.ProcessEnv, tools: string[]): AllowEdit {
  const block = [MARK, ...tools.flatMap((tool) => [table(tool), 'approval_mode = "approve"'])].join("\n");
  return {
    host: "codex",
    file: join(codexHome(env), "config.toml"),
    rules: tools.map(table),
    isSet: (text) => text !== undefined && tools.every((tool) => text.includes(table(tool))),
    add: (text) => `${text === undefined || text === "" ? "" : text.endsWith("\n") ? `${text}\n` : `${text}\n\n`}${block}\n`,
    // Only the block peerpost wrote; tables someone wrote by hand stay.
    remove: (text) => text.replace(`\n${block}\n`, "\n").replace(`${block}\n`, ""),
  };
}
