// Resolves and prepares the private state directory (default ~/.peerpost): dir 0700, files 0600.
// Links are resolved before the refusal checks; what else is trusted on disk is in trust.ts.
import { statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { PeerpostError, ioError } from "../common/errors.js";
import { checkAncestors, ensurePrivateDir, resolveLinks } from "./trust.js";

export { DIR_MODE, FILE_MODE } from "./trust.js";

/** Host configuration directories that must never become peerpost's state dir. */
const HOST_CONFIG_DIRS = [".claude", ".codex", ".copilot", ".grok"];

export interface StateDirInfo {
  path: string;
  /** How the path was chosen: the PEERPOST_HOME variable or the default. */
  source: "PEERPOST_HOME" | "default";
  mode: string;
}

function refuse(path: string, why: string): PeerpostError {
  return new PeerpostError("state_io_error", `Refusing to use ${path} as the peerpost state dir: ${why}.`, {
    details: { path },
    hint: "Unset PEERPOST_HOME to use ~/.peerpost, or point it at a dedicated directory such as ~/.peerpost.",
  });
}

/** Where the state dir is, with links resolved, without creating anything. */
export function resolveStateDirPath(configured: string | undefined, home: string = homedir()): { path: string; source: StateDirInfo["source"] } {
  let path: string;
  if (configured === undefined) path = join(home, ".peerpost");
  else if (configured === "~" || configured.startsWith("~/")) path = join(home, configured.slice(1));
  else if (isAbsolute(configured)) path = configured;
  else
    throw new PeerpostError("invalid_arguments", `PEERPOST_HOME=${JSON.stringify(configured)} is a relative path.`, {
      details: { variable: "PEERPOST_HOME", value: configured },
      hint: "Give PEERPOST_HOME as an absolute path or one starting with ~/ (for example ~/.peerpost).",
    });
  // Compared as the real paths: a link to the home dir or to a host's config dir is refused like the dir itself.
  path = realPath(resolve(path));
  const bareHome = realPath(resolve(home));
  if (path === sep) throw refuse(path, "it is the filesystem root");
  if (path === bareHome) throw refuse(path, "it is your home directory itself");
  for (const hostDir of HOST_CONFIG_DIRS) {
    const hostPath = realPath(join(bareHome, hostDir));
    if (path === hostPath || path.startsWith(hostPath + sep)) throw refuse(path, `it is inside a host's configuration directory (~/${hostDir})`);
  }
  return { path, source: configured === undefined ? "default" : "PEERPOST_HOME" };
}

function realPath(path: string): string {
  try {
    return resolveLinks(path);
  } catch (error) {
    throw ioError("resolve", path, error);
  }
}

/** A state dir is made in a directory that exists: a missing parent is a wrong HOME or PEERPOST_HOME, not a tree to build. */
function checkParentExists(path: string): void {
  const parent = dirname(path);
  let isDirectory = false;
  try {
    isDirectory = statSync(parent).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory)
    throw new PeerpostError("state_io_error", `Refusing to create the peerpost state dir ${path}: its parent ${parent} does not exist.`, {
      details: { path, parent, reason: "parent_missing" },
      hint: "Check HOME and PEERPOST_HOME, or create the parent directory yourself first.",
    });
}

/**
 * Creates the dir (0700) in an existing parent, or checks an existing one: a real directory of this user
 * that no one else can write, below directories that are safe (see trust.ts). An existing dir's mode is never changed.
 */
export function ensureStateDir(configured: string | undefined, home: string = homedir()): StateDirInfo {
  return prepareStateDir(resolveStateDirPath(configured, home));
}

/** `ensureStateDir` for a state dir `resolveStateDirPath` found already. */
export function prepareStateDir({ path, source }: { path: string; source: StateDirInfo["source"] }): StateDirInfo {
  let mode: number;
  try {
    checkParentExists(path);
    checkAncestors(path);
    ensurePrivateDir(path, { parents: false });
    mode = statSync(path).mode;
  } catch (error) {
    if (error instanceof PeerpostError) throw error;
    throw ioError("create the state dir", path, error);
  }
  return { path, source, mode: "0" + (mode & 0o777).toString(8) };
}
