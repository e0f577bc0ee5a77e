// node:child_process, loaded on first use: it brings the streams, net and dgram with it (~10 ms), which a
// command or hook that starts no process (status, inbox, a prompt) never needs. By require, not import(),
// as crypto.ts: a CommonJS bundle would start the ES module loader for it.
import { createRequire } from "node:module";

export function nodeChildProcess(): typeof import("node:child_process") {
  return createRequire(process.execPath)("node:child_process") as typeof import("node:child_process");
}
