// Transpiles every TypeScript source (core, hooks, plugins, tests) file-by-file into .build/,
// keeping the tree, so node --test runs the real modules without a loader. Type checking is tsc's job.
import { readdirSync, statSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = join(root, ".build");
const sourceDirs = ["core", "hooks", "plugins", "tests"];

function collect(dir, found) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, found);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

const entryPoints = sourceDirs.flatMap((dir) => {
  try { return collect(join(root, dir), []); } catch { return []; }
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
