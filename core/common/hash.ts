// A small non-cryptographic 64-bit hash (FNV-1a, as two 32-bit lanes) for cache file names and log
// fingerprints. Loading node:crypto costs a prompt hook more than the hashing it would do.
export function fnv1a64(input: string | Uint8Array): string {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  let high = 0xcbf29ce4;
  let low = 0x84222325;
  for (const byte of bytes) {
    low = (low ^ byte) >>> 0;
    // Multiply the 64-bit value by the FNV prime 0x100000001b3 = 2^40 + 0x1b3.
    const lowTimesPrime = low * 0x1b3;
    const carry = Math.floor(lowTimesPrime / 0x100000000);
    const newLow = lowTimesPrime >>> 0;
    high = (Math.imul(high, 0x1b3) + carry + (low << 8)) >>> 0;
    low = newLow;
  }
  return high.toString(16).padStart(8, "0") + low.toString(16).padStart(8, "0");
}
