// A run starts the host's CLI by name on the PATH of the environment it runs with: look for it first,
// so a missing CLI is a plain `host_not_found` naming the PATH searched, not a spawn error after the fact.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { PeerpostError } from "../common/errors.js";
import type { SessionHost } from "../records/schemas.js";

/** Every executable file a command name could run on this PATH, in PATH order (an absolute name: itself). */
export function executablesOnPath(command: string, path: string | undefined): string[] {
  const candidates = isAbsolute(command) ? [command] : (path ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, command));
  return candidates.filter((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/** The executable a command name runs on this PATH, or undefined. */
export function findOnPath(command: string, path: string | undefined): string | undefined {
  return executablesOnPath(command, path)[0];
}

export function hostNotFound(host: SessionHost, command: string, path: string | undefined): PeerpostError {
  const searched = (path ?? "").split(delimiter).filter(Boolean);
  return new PeerpostError("host_not_found", `The ${host} CLI (\`${command}\`) is not on the PATH a run of it would use.`, {
    details: { host, command, path: searched },
    hint: `Install ${command} so it is on PATH (searched: ${searched.join(delimiter) || "an empty PATH"}), start one ${host} session so peerpost records its environment, or use another host.`,
  });
}

/** Refuses before anything is written when the host's CLI is missing from the run's PATH. */
export function requireHostBinary(host: SessionHost, command: string, env: NodeJS.ProcessEnv): void {
  if (findOnPath(command, env.PATH) === undefined) throw hostNotFound(host, command, env.PATH);
}
