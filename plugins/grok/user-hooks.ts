// Grok 1.0.41 runs user-level hooks ($GROK_HOME/hooks/*.json, Claude's format) but never the hooks a
// plugin ships (verified, see README.md). `peerpost hooks install grok` writes peerpost's hook file there,
// pointing at a plugin dir that holds hooks.cjs; `uninstall` removes it. Only this one file is touched.
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { grokUserHookPath, inspectGrok } from "./inspect.js";
import { GROK_WRITING_TOOLS } from "./edit-tools.js";
import { shellQuote } from "../../core/common/shell-word.js";

/**
 * A path as one word of a hook command. Grok 1.0.41 runs the command through sh, after putting its
 * environment's values in place of `$NAME` and `${NAME}` itself, inside quotes too (and an unset one
 * fails the hook): so the path is single-quoted for sh, and each `$` in it followed by a quote, which
 * Grok leaves as it is (all verified against the real CLI).
 */
function grokCommandWord(text: string): string {
  return shellQuote(text).replaceAll("$", () => "$''");
}

/** The hook commands, for the plugin dir that holds hooks.cjs. */
export function grokUserHooks(pluginDir: string): Record<string, unknown> {
  const command = (event: string) => [{ hooks: [{ type: "command", command: `node ${grokCommandWord(join(pluginDir, "hooks.cjs"))} ${event}`, timeout: 10 }] }];
  const writes = (event: string) => [{ matcher: GROK_WRITING_TOOLS.join("|"), hooks: command(event)[0]!.hooks }];
  // PostToolUse speaks only in `warn` mode: the note Grok cannot show before a tool runs.
  return { hooks: { SessionStart: command("session-start"), PreToolUse: writes("pre-tool"), PostToolUse: writes("post-tool"), Stop: command("stop") } };
}

/** The Grok plugin dir to run hooks from: the one Grok installed from, else the build beside this CLI. */
export function grokPluginDir(env: NodeJS.ProcessEnv, cliPath: string): string | undefined {
  const candidates = [inspectGrok(env).installedFrom, join(dirname(cliPath), "grok")];
  return candidates.find((dir): dir is string => typeof dir === "string" && existsSync(join(dir, "hooks.cjs")));
}

export function installGrokUserHooks(env: NodeJS.ProcessEnv, pluginDir: string): string {
  const path = grokUserHookPath(env);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(grokUserHooks(pluginDir), null, 2) + "\n");
  return path;
}

/** True when a file was there to remove. */
export function uninstallGrokUserHooks(env: NodeJS.ProcessEnv): boolean {
  const path = grokUserHookPath(env);
  const existed = existsSync(path);
  rmSync(path, { force: true });
  return existed;
}
