// A bench worker with no peerpost in it: appends `count` lines to one file, each with its own write and
// fsync, through a descriptor opened before the start signal. Eight of these are what this machine gives
// eight node processes that do nothing but a durable append. argv: <path> <count> <goFile>
import { fsyncSync, openSync, writeSync } from "node:fs";
import { LINE, awaitGo, finished } from "./start-signal.mjs";

const [path, countText] = process.argv.slice(2);
const fd = openSync(path, "a", 0o600);
await awaitGo();
for (let i = 0; i < Number(countText); i++) {
  writeSync(fd, LINE);
  fsyncSync(fd);
}
finished();
