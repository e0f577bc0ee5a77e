// A bench process with no peerpost in it: one writer for the machine. Clients send whole lines over a Unix
// socket; each batch that gathered meanwhile gets one write() and one fsync, then every line in it is
// acknowledged (one byte each). Prints "listening" once it accepts clients; exits on SIGTERM.
// argv: <path> <socketPath>
import { createServer } from "node:net";
import { fsyncSync, openSync, writeSync } from "node:fs";

const [path, socketPath] = process.argv.slice(2);
const fd = openSync(path, "a", 0o600);
let chunks = [];
/** [client, lines it sent] for every chunk of the batch being gathered. */
let waiting = [];
let scheduled = false;

function flush() {
  scheduled = false;
  const data = Buffer.concat(chunks);
  const acks = waiting;
  chunks = [];
  waiting = [];
  writeSync(fd, data);
  fsyncSync(fd);
  for (const [client, lines] of acks) client.write(Buffer.alloc(lines, "k"));
}

const server = createServer((client) => {
  client.on("data", (data) => {
    let lines = 0;
    for (const byte of data) if (byte === 0x0a) lines++;
    chunks.push(data);
    waiting.push([client, lines]);
    // Lines that arrive while a batch syncs (the event loop is blocked) make the next batch.
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  client.on("error", () => undefined);
});
server.listen(socketPath, () => process.stdout.write("listening\n"));
process.on("SIGTERM", () => process.exit(0));
