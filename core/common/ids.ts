// Message and receipt ids: monotonic ULIDs. The ulid package and node:crypto are loaded on the first id,
// never by a reader that only looks.
import { createRequire } from "node:module";
import { nodeCrypto } from "./crypto.js";

type IdFactory = (seedTime?: number) => string;

let factory: Promise<IdFactory> | undefined;

/**
 * ulid's own generator asks the system for one random byte per character (16 calls per id); this one
 * draws the same uniform bytes from a pool the system fills 256 at a time.
 */
function pooledRandom(): () => number {
  const { randomFillSync } = nodeCrypto();
  const pool = Buffer.allocUnsafe(256);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

export function idFactory(): Promise<IdFactory> {
  // require, not import(): a CommonJS hook bundle would start the ES module loader for it (see cache.ts).
  factory ??= Promise.resolve().then(() => {
    // Literal requires: the bundler resolves them (to the vendored copy in a hook bundle).
    const { monotonicFactory } = (typeof require === "function" ? require("ulid") : createRequire(import.meta.url)("ulid")) as typeof import("ulid");
    return monotonicFactory(pooledRandom());
  });
  return factory;
}
