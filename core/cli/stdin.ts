// Standard input read whole, but never past a limit: `yes | peerpost send -` or a device must not be read
// until memory runs out before the length is checked.
import { readSync } from "node:fs";
import { sleepSync } from "../common/sleep.js";

/** Stdin as UTF-8 text, or undefined once it holds more than `limit` bytes (the rest is not read). */
export function readStdinUpTo(limit: number): string | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      // A non-blocking stdin with nothing yet: wait a moment for more.
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
      sleepSync(10);
      continue;
    }
    if (read === 0) return Buffer.concat(chunks, total).toString("utf8");
    total += read;
    if (total > limit) return undefined;
    chunks.push(Buffer.from(chunk.subarray(0, read)));
  }
}
