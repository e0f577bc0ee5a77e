// Work that outlives the process asking for it (a wake's run, an index build): the bundle this process
// runs from is started again with a subcommand, detached in its own process group, output ignored.
import { createRequire } from "node:module";

export function startDetached(entry: string, args: string[], stateDir: string): void {
  // Loaded on use: hooks, which start an index build only on an old log, must not pay for it at every prompt.
  const { spawn } = createRequire(process.execPath)("node:child_process") as typeof import("node:child_process");
  const child = spawn(process.execPath, [entry, ...args], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, PEERPOST_HOME: stateDir },
  });
  child.on("error", () => undefined);
  child.unref();
}
