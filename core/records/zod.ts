// zod/mini, loaded on first use. A prompt hook that finds nothing to validate never evaluates it,
// which saves it ~5 ms of its start-up. Schemas and config parse through this `z`.
import { createRequire } from "node:module";
import type * as Zod from "zod/mini";

let loaded: typeof Zod | undefined;

function load(): typeof Zod {
  // Bundled (dist/), `require` exists and esbuild inlines zod behind it; unbundled, resolve from this file.
  return (typeof require === "function" ? require("zod/mini") : createRequire(import.meta.url)("zod/mini")) as typeof Zod;
}

/** The zod/mini namespace; the module is loaded on the first property read. */
export const z: typeof Zod = new Proxy({} as typeof Zod, { get: (_target, key) => (loaded ??= load())[key as keyof typeof Zod] });

export type { Zod };
