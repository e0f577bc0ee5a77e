// Where a command name is found on a PATH: what `peerpost doctor` reports for each host CLI, and the
// binary a launch runs.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export function which(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}
