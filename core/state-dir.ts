// Resolves and prepares the private state directory (default ~/.peerpost): dir 0700, files 0600.
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve, sep } from "node:path";
import { PeerpostError, ioError } from "./errors.js";

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** Host configuration directories that must never become peerpost's state dir. */
const HOST_CONFIG_DIRS = [".claude", ".codex", ".copilot", ".grok"];

export interface StateDirInfo {
  path: string;
  /** How the path was chosen: the PEERPOST_HOME variable or the default. */
  source: "PEERPOST_HOME" | "default";
  /** True when an existing dir was looser than 0700 and got tightened. */
  tightened: boolean;
  mode: string;
}

function refuse(path: string, why: string): PeerpostError {
  return new PeerpostError("state_io_error", `Refusing to use ${path} as the peerpost state dir: ${why}.`, {
    details: { path },
    hint: "Unset PEERPOST_HOME to use ~/.peerpost, or point it at a dedicated directory such as ~/.peerpost.",
  });
}

/** Where the state dir is, without touching the disk. */
export function resolveStateDirPath(configured: string | undefined, home: string = homedir()): { path: string; source: StateDirInfo["source"] } {
  if (configured === undefined) return { path: join(home, ".peerpost"), source: "default" };
  let path: string;
  if (configured === "~" || configured.startsWith("~/")) path = join(home, configured.slice(1));
  else if (isAbsolute(configured)) path = configured;
  else
    throw new PeerpostError("invalid_arguments", `PEERPOST_HOME=${JSON.stringify(configured)} is a relative path.`, {
      details: { variable: "PEERPOST_HOME", value: configured },
      hint: "Give PEERPOST_HOME as an absolute path or one starting with ~/ (for example ~/.peerpost).",
    });
  path = resolve(path);
  const bareHome = resolve(home);
  if (path === sep) throw refuse(path, "it is the filesystem root");
  if (path === bareHome) throw refuse(path, "it is your home directory itself");
  for (const hostDir of HOST_CONFIG_DIRS) {
    const hostPath = join(bareHome, hostDir);
    if (path === hostPath || path.startsWith(hostPath + sep)) throw refuse(path, `it is inside a host's configuration directory (~/${hostDir})`);
  }
  return { path, source: "PEERPOST_HOME" };
}

/** Creates the dir (0700) or checks an existing one, tightening a looser mode. */
export function ensureStateDir(configured: string | undefined, home: string = homedir()): StateDirInfo {
  const { path, source } = resolveStateDirPath(configured, home);
  try {
    mkdirSync(path, { recursive: true, mode: DIR_MODE });
  } catch (error) {
    throw ioError("create the state dir", path, error);
  }
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    throw ioError("inspect the state dir", path, error);
  }
  if (!stat.isDirectory()) throw refuse(path, "it is not a directory");
  if (typeof process.getuid === "function" && stat.uid !== process.getuid())
    throw new PeerpostError("permission_denied", `The state dir ${path} belongs to another user (uid ${stat.uid}).`, {
      details: { path, owner: stat.uid },
      hint: "Use your own state dir: unset PEERPOST_HOME or point it at a directory you own.",
    });
  let tightened = false;
  if ((stat.mode & 0o077) !== 0) {
    try {
      chmodSync(path, DIR_MODE);
      tightened = true;
    } catch (error) {
      throw ioError("restrict the permissions of", path, error);
    }
  }
  return { path, source, tightened, mode: "0" + ((tightened ? DIR_MODE : stat.mode) & 0o777).toString(8) };
}
