// Text cut to a size in bytes of UTF-8, the unit of every limit on what peerpost stores (a body's 64 KiB).

/** `text` cut to at most `max` bytes of UTF-8, never inside a character. */
export function cutToBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return text;
  let end = max;
  // Back to the first byte of the character the cut falls in (continuation bytes are 10xxxxxx).
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
