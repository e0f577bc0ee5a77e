// `peerpost hooks install|uninstall grok`: user-level hooks for hosts that ignore a plugin's own hooks.
import { fileURLToPath } from "node:url";
import { PeerpostError } from "../common/errors.js";
import { grokPluginDir, installGrokUserHooks, uninstallGrokUserHooks } from "../../plugins/grok/user-hooks.js";
import { printJson, UsageError } from "./output.js";

export function hooksCommand(args: string[], json: boolean): void {
  const [action, host] = args;
  if ((action !== "install" && action !== "uninstall") || host === undefined) throw new UsageError("usage: peerpost hooks install|uninstall grok", "hooks");
  if (host !== "grok") throw new UsageError(`only grok needs user-level hooks (the other hosts run the plugin's own); got ${JSON.stringify(host)}`, "hooks");
  if (action === "uninstall") {
    const removed = uninstallGrokUserHooks(process.env);
    if (json) printJson({ ok: true, host, removed });
    else process.stdout.write(removed ? "removed peerpost's Grok user hooks\n" : "no peerpost Grok user hooks were installed\n");
    return;
  }
  const pluginDir = grokPluginDir(process.env, fileURLToPath(import.meta.url));
  if (pluginDir === undefined)
    throw new PeerpostError("not_found", "No peerpost Grok plugin dir with hooks.cjs was found.", {
      hint: "Install the plugin first (grok plugin marketplace add <peerpost> && grok plugin install peerpost --trust), or run this from a built clone (npm run build).",
    });
  const path = installGrokUserHooks(process.env, pluginDir);
  if (json) printJson({ ok: true, host, path, pluginDir });
  else process.stdout.write(`wrote ${path}: Grok runs peerpost's SessionStart, PreToolUse, PostToolUse and Stop hooks from ${pluginDir}\n`);
}
