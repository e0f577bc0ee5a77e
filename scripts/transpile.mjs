// Transpiles every TypeScript source (core, hooks, plugins, tests) file-by-file into .build/,
// keeping the tree, so node --test runs the real modules without a loader. Type checking is tsc's job.
import { rmSync } from "node:fs";
import { typescriptSources } from "./sources.mjs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, ".build");
const sourceDirs = ["core", "hooks", "plugins", "tests"];

const entryPoints = sourceDirs.flatMap((dir) => {
  try { return typescriptSources(join(root, dir)); } catch { return []; }
});
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints,
  outdir,
  outbase: root,
  bundle: false,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  logLevel: "warning",
  // core/records/zod.ts calls require() only where it exists and falls back to createRequire in ES modules, so
  // esbuild's "Converting require to esm" warning describes exactly what is meant; it is not a failure.
  logOverride: { "unsupported-require-call": "silent" },
});
console.error(`transpiled ${entryPoints.length} files into ${relative(process.cwd(), outdir) || outdir}`);
