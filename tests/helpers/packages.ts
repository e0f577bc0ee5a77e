// What the lock file installs, and whether a package needs a compiler to install.
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./mcp.js";

export interface LockEntry {
  optional?: boolean;
  hasInstallScript?: boolean;
}

export const readRepoFile = (path: string) => readFileSync(join(REPO_ROOT, path), "utf8");

export const lockPackages = () => (JSON.parse(readRepoFile("package-lock.json")) as { packages: Record<string, LockEntry> }).packages;

/** npm's own cache, which the offline installs read (they add nothing to it). */
export const npmCache = () => spawnSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).stdout.trim();

/** A package needs a compiler when it ships a node-gyp project or its install script runs a native build. */
export function needsBuild(dir: string): string | undefined {
  if (existsSync(join(dir, "binding.gyp"))) return "binding.gyp";
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { gypfile?: boolean; scripts?: Record<string, string> };
  if (manifest.gypfile) return "gypfile";
  const install = ["preinstall", "install", "postinstall"].map((name) => manifest.scripts?.[name] ?? "").join(" ");
  return /node-gyp|prebuild-install|cmake-js|node-pre-gyp/.test(install) ? `install script: ${install.trim()}` : undefined;
}
