// The start signal shared by the bench's multi-process workers: a worker says "ready" once set up, waits
// for the go file (its last argument), and says "done <wall ms>" when its timed work is over. The bench
// times from go to the last "done", so neither start-up nor process exit counts, as in the raw loop.
import { existsSync } from "node:fs";

/** The line every append row writes: about the size of a short message's record. */
export const LINE = Buffer.from(JSON.stringify({ v: 1, type: "msg", body: "x".repeat(200) }) + "\n");

export async function awaitGo() {
  process.stdout.write("ready\n");
  const go = process.argv.at(-1);
  while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 1));
}

export function wallMs() {
  return performance.timeOrigin + performance.now();
}

export function finished() {
  process.stdout.write(`done ${wallMs()}\n`);
}
