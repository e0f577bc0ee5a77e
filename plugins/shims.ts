// The hosts `peerpost shim` can sit in front of, and how it finds each host's own executable.
import { readFileSync, statSync } from "node:fs";
import type { ShimDialect } from "../core/server/shim-sessions.js";
import { codexShim } from "./codex/shim.js";
import { copilotShim } from "./copilot/shim.js";
import { grokShim } from "./grok/shim.js";
import { executablesOnPath } from "../core/wake/host-binary.js";

export const SHIMS: Record<string, ShimDialect> = { codex: codexShim, grok: grokShim, copilot: copilotShim };

/** Scripts larger than this are not a one-line `exec peerpost shim …` wrapper. */
const WRAPPER_MAX_BYTES = 4096;

/** A small script that runs `peerpost shim`: a wrapper a person put on PATH under the host's name. */
function isShimWrapper(path: string): boolean {
  try {
    if (statSync(path).size > WRAPPER_MAX_BYTES) return false;
    return /peerpost\S*\s+shim\b/.test(readFileSync(path, "utf8"));
  } catch {
    return false;
  }
}

/** The host's own executable: the first on PATH that is not a shim wrapper (which would start the shim again). */
export function realHostBinary(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return executablesOnPath(name, env.PATH).find((path) => !isShimWrapper(path));
}
