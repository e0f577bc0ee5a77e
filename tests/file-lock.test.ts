// The lock of a small state file's read-change-write (core/security/file-lock.ts): one left by a process
// killed while holding it is taken over after a second, by one waiter only (16 commands racing for it:
// switch-races.test.ts). One that judged the old lock stale must never remove the lock another took since,
// or two hold it at once and a change is lost. And something other than a directory in its place (a link)
// is no lock, and never blocks updates.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { pathToFileURL } from "node:url";
import { tempDir } from "./helpers/temp.js";
import { updateSwitches } from "../core/wake/switches.js";

// The same interleaving, step by step: this process judges the killed process's lock stale, and before it
// removes it, another waiter does the same, removes it, makes its own and is inside. This process then
// removes that fresh lock (it never judged it stale), makes its own and goes in too.

test("a waiter that judged a dead process's lock stale never removes the lock another waiter took meanwhile", async (t) => {
  const stateDir = tempDir(t);
  writeFileSync(join(stateDir, "wake.json"), JSON.stringify({ v: 1, wake: { all: true }, launch: false, push: {} }) + "\n", { mode: 0o600 });
  const lock = join(stateDir, "wake.json.updating");
  mkdirSync(lock);
  const old = new Date(Date.now() - 5000);
  utimesSync(lock, old, old); // left by a process killed 5 s ago
  const inside = join(stateDir, "other-inside");
  const module = pathToFileURL(join(import.meta.dirname, "../core/wake/switches.js")).href;
  // The other waiter: a real process that takes the stale lock over and holds it for 400 ms (well under STALE_MS).
  const script = `import { updateSwitches } from ${JSON.stringify(module)}; import { writeFileSync, rmSync } from "node:fs";
    updateSwitches(${JSON.stringify(stateDir)}, (s) => { writeFileSync(${JSON.stringify(inside)}, ""); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400); s.wake["codex:other"] = false; rmSync(${JSON.stringify(inside)}); });`;
  const fs = createRequire(import.meta.url)("node:fs") as { lstatSync: typeof import("node:fs").lstatSync };
  const stat = fs.lstatSync;
  let other: ReturnType<typeof spawn> | undefined;
  fs.lstatSync = ((path: string, options?: unknown) => {
    const result = stat(path, options as Parameters<typeof stat>[1]);
    if (path === lock && other === undefined) {
      // Between this process's look at the lock and its removal, the other waiter takes it over.
      other = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" });
      for (let waited = 0; !existsSync(inside) && waited < 10_000; waited += 5) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
    return result;
  }) as typeof fs.lstatSync;
  syncBuiltinESMExports();
  t.after(() => {
    fs.lstatSync = stat;
    syncBuiltinESMExports();
  });
  let otherHeldIt = false;
  updateSwitches(stateDir, (switches) => {
    otherHeldIt = existsSync(inside);
    switches.wake["codex:me"] = false;
  });
  fs.lstatSync = stat;
  syncBuiltinESMExports();
  await new Promise((resolve) => other!.on("exit", resolve));
  const wake = (JSON.parse(readFileSync(join(stateDir, "wake.json"), "utf8")) as { wake: Record<string, boolean> }).wake;
  assert.deepEqual({ otherHeldIt, wake }, { otherHeldIt: false, wake: { all: true, "codex:other": false, "codex:me": false } }, "this process went in while the other held the lock, and one change is lost");
});

test("a link in place of the lock is no lock: an update goes on, and what it pointed at stays", async (t) => {
  const stateDir = tempDir(t);
  const elsewhere = join(stateDir, "elsewhere");
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, "kept"), "kept");
  // What it points at is dated an hour ahead: followed, it would never look stale.
  const later = new Date(Date.now() + 3_600_000);
  utimesSync(elsewhere, later, later);
  symlinkSync(elsewhere, join(stateDir, "wake.json.updating"));
  updateSwitches(stateDir, (switches) => void (switches.launch = true));
  assert.equal((JSON.parse(readFileSync(join(stateDir, "wake.json"), "utf8")) as { launch: boolean }).launch, true);
  assert.equal(readFileSync(join(elsewhere, "kept"), "utf8"), "kept");
});

test("a holder stopped past the stale time and taken over releases nothing of the lock another holds now", async (t) => {
  const stateDir = tempDir(t);
  const lock = join(stateDir, "wake.json.updating");
  const inside = join(stateDir, "other-inside");
  const module = pathToFileURL(join(import.meta.dirname, "../core/wake/switches.js")).href;
  const script = `import { updateSwitches } from ${JSON.stringify(module)}; import { writeFileSync, rmSync } from "node:fs";
    updateSwitches(${JSON.stringify(stateDir)}, () => { writeFileSync(${JSON.stringify(inside)}, ""); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000); rmSync(${JSON.stringify(inside)}); });`;
  let other: ReturnType<typeof spawn> | undefined;
  updateSwitches(stateDir, () => {
    // This holder stalls (as if stopped) until its lock looks stale; another process takes it over meanwhile.
    const old = new Date(Date.now() - 5000);
    utimesSync(lock, old, old);
    other = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" });
    for (let waited = 0; !existsSync(inside) && waited < 10_000; waited += 5) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  });
  const stillHeld = existsSync(inside) && existsSync(lock);
  await new Promise((resolve) => other!.on("exit", resolve));
  assert.equal(stillHeld, true, "this holder's release removed the lock the other process held");
});
