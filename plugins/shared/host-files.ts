// Read-only access to a host's own configuration: where its config dir is, and reading a file from it
// without failing when it is absent or malformed. peerpost never writes these.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** A host's config dir: its own variable (CODEX_HOME, COPILOT_HOME, …) or ~/<dirName>. */
export function hostConfigDir(env: NodeJS.ProcessEnv, variable: string, dirName: string): string {
  const configured = env[variable];
  return configured !== undefined && configured.length > 0 ? configured : join(env.HOME ?? homedir(), dirName);
}

/** The file's text, or "" when it cannot be read. */
export function readTextOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** The file parsed as JSON, or undefined when it is absent or not JSON. */
export function readJsonOrUndefined(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * A directory marketplace's path when it no longer holds any of the catalogues its host reads: the host
 * loads a plugin from it live (nothing is copied), so with the clone moved or gone nothing loads.
 */
export function goneMarketplace(source: { source?: unknown; path?: unknown } | undefined, catalogues: readonly string[]): string | undefined {
  if (source?.source !== "directory" || typeof source.path !== "string") return undefined;
  const dir = source.path;
  return catalogues.some((catalogue) => existsSync(join(dir, catalogue))) ? undefined : dir;
}
