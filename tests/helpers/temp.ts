// Temporary state dirs and homes for tests, removed when the test ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { openPeerpost, type Peerpost } from "../../core/peerpost.js";

const cleanups = new WeakMap<TestContext, Array<() => unknown>>();

/**
 * Registers a clean-up step that runs after the test, last registered first: node:test runs t.after
 * hooks in registration order, which would remove a temp dir while servers started later still use it.
 */
export function onCleanup(t: TestContext, step: () => unknown): void {
  let steps = cleanups.get(t);
  if (!steps) {
    const registered: Array<() => unknown> = [];
    cleanups.set(t, registered);
    t.after(async () => {
      const failures: unknown[] = [];
      for (const next of registered.reverse()) await Promise.resolve().then(next).catch((error: unknown) => failures.push(error));
      if (failures.length > 0) throw failures[0];
    });
    steps = registered;
  }
  steps.push(step);
}

export function tempDir(t: TestContext, prefix = "peerpost-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onCleanup(t, () => removeTree(dir));
  return dir;
}

/**
 * Removes a temp tree, listing it again on each try: a detached process the test started (a wake runner
 * checking for more mail after its run) may still create a file in it. rmSync's own retries only retry
 * the last rmdir, so one file created after its listing fails every one of them.
 */
export async function removeTree(dir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt === 50 || (code !== "ENOTEMPTY" && code !== "EBUSY")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export interface TestPeerpost {
  peerpost: Peerpost;
  home: string;
  stateDir: string;
  /** The clock every store reads; move it by hand. */
  clock: { now: number };
  /** Another Peerpost over the same state dir and clock (a second process, in effect). */
  reopen(): Peerpost;
}

export function tempPeerpost(t: TestContext, env: Record<string, string> = {}): TestPeerpost {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const clock = { now: Date.parse("2026-01-01T00:00:00.000Z") };
  const reopen = () => {
    const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir, ...env }, home, now: () => clock.now });
    onCleanup(t, () => peerpost.backend.close());
    return peerpost;
  };
  return { peerpost: reopen(), home, stateDir, clock, reopen };
}

/** The environment of a `peerpost` child on this test's state dir, at its clock's time now. */
export function cliEnv({ home, stateDir, clock }: TestPeerpost, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: "/usr/bin:/bin", HOME: home, PEERPOST_HOME: stateDir, PEERPOST_NOW: String(clock.now), ...extra };
}
