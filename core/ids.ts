// Message and receipt ids: monotonic ULIDs. The ulid package loads node:crypto, so it is imported on
// the first id, never by a reader that only looks.
import { createRequire } from "node:module";

type IdFactory = (seedTime?: number) => string;

let factory: Promise<IdFactory> | undefined;

export function idFactory(): Promise<IdFactory> {
  // require, not import(): a CommonJS hook bundle would start the ES module loader for it (see cache.ts).
  factory ??= Promise.resolve().then(() => {
    const { monotonicFactory } = (typeof require === "function" ? require("ulid") : createRequire(import.meta.url)("ulid")) as typeof import("ulid");
    return monotonicFactory();
  });
  return factory;
}
