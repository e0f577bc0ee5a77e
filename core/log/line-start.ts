// Where the first whole line at or after a byte offset of a log starts: a reader that wants only the
// file's last bytes (a hook's look at the newest mail) starts there instead of in the middle of a line.
import { closeSync, constants, readSync } from "node:fs";
import { openStateFile } from "../security/trust.js";

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** The offset of the first line of `path` that starts at or after `offset` (the file's size when none does). */
export function lineStartAtOrAfter(path: string, offset: number): number {
  if (offset <= 0) return 0;
  const fd = openStateFile(path, constants.O_RDONLY);
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    // A line starts at `offset` when the byte before it ends one.
    for (let position = offset - 1; ; ) {
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, position);
      const newline = chunk.subarray(0, read).indexOf(NEWLINE);
      if (newline >= 0) return position + newline + 1;
      position += read;
      if (read === 0) return position;
    }
  } finally {
    closeSync(fd);
  }
}
