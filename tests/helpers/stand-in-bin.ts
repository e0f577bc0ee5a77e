// A stand-in host CLI on PATH: a node script under the host's command name, in a temp home with a state
// dir and a working dir, for the runs peerpost starts (wake, launch, fork) to find instead of the real one.
import type { TestContext } from "node:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp.js";

export function standInOnPath(t: TestContext, prefix: string, command: string, source: string) {
  const home = tempDir(t, prefix);
  const stateDir = join(home, "state");
  const work = join(home, "work");
  const bin = join(home, "bin");
  mkdirSync(work);
  mkdirSync(bin);
  writeFileSync(join(bin, command), `#!${process.execPath}\n${source}`, { mode: 0o755 });
  return { home, stateDir, work, env: { HOME: home, PEERPOST_HOME: stateDir, PATH: `${bin}:${process.env.PATH ?? ""}` } };
}
