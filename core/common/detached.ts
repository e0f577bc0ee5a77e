// Work that outlives the process asking for it (a wake's run, an index build): the bundle this process
// runs from is started again with a subcommand, detached in its own process group, output ignored.
import { nodeChildProcess } from "./child-process.js";

/** Starts `node <entry> <args…>` on its own, on `stateDir`; its pid, when it could be started. */
export function startDetached(entry: string, args: string[], stateDir: string): number | undefined {
  // Loaded on use: hooks, which start an index build only on an old log, must not pay for it at every prompt.
  const { spawn } = nodeChildProcess();
  const child = spawn(process.execPath, [entry, ...args], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, PEERPOST_HOME: stateDir },
  });
  child.on("error", () => undefined);
  child.unref();
  return child.pid;
}
