// A bench worker with no peerpost in it: a group commit in user space. Each writer appends its line;
// then, unless the synced mark already covers it, it either becomes the one that fsyncs for everyone
// (an O_EXCL file is the leader's lock) and moves the mark, or waits for the mark to move (inotify).
// argv: <path> <count> <goFile>
import { closeSync, constants, fstatSync, fsyncSync, openSync, readSync, unlinkSync, watch, writeSync } from "node:fs";
import { LINE, awaitGo, finished } from "./start-signal.mjs";

const [path, countText] = process.argv.slice(2);
const log = openSync(path, "a", 0o600);
const markPath = `${path}.synced`;
const leaderPath = `${path}.syncing`;
const mark = openSync(markPath, constants.O_RDWR | constants.O_CREAT, 0o600);
const markBuffer = Buffer.alloc(16);
let wake;
const watcher = watch(markPath, () => wake?.());

function synced() {
  const read = readSync(mark, markBuffer, 0, markBuffer.length, 0);
  // A mark read while the leader rewrites it may not parse: then it covers nothing, and the writer waits on.
  return Number(markBuffer.toString("latin1", 0, read)) || 0;
}

function lead() {
  let lock;
  try {
    lock = openSync(leaderPath, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
  } catch {
    return false;
  }
  const covered = fstatSync(log).size;
  fsyncSync(log);
  closeSync(lock);
  unlinkSync(leaderPath);
  // Written after the lock is gone, so a writer woken by it can lead the next fsync.
  writeSync(mark, Buffer.from(String(Math.max(covered, synced())).padEnd(markBuffer.length)), 0, markBuffer.length, 0);
  return true;
}

await awaitGo();
for (let i = 0; i < Number(countText); i++) {
  writeSync(log, LINE);
  const end = fstatSync(log).size;
  // A wait ends at the mark's next move, or after 20 ms should a wake-up go missing.
  while (synced() < end && !lead()) await new Promise((resolve) => setTimeout((wake = resolve), 20));
}
watcher.close();
finished();
