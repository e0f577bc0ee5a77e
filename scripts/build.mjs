// Builds everything committed from the sources: dist/cli.mjs, each host's self-contained plugin dir
// under dist/<host>/ (server.mjs, hooks.cjs, hook-program.cjs and edit-program.cjs, manifests) and the marketplace catalogues at the root.
//   node scripts/build.mjs            write into the repository
//   node scripts/build.mjs --check    build into a temp dir and fail if anything committed differs
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, chmodSync, existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const check = process.argv.includes("--check");
// Everything is built into a staging dir first; writing mode then swaps dist/ in one rename, so a
// process running from dist/ never sees it half-written.
const out = check ? mkdtempSync(join(tmpdir(), "peerpost-dist-")) : mkdtempSync(join(root, ".dist-staging-"));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Host plugin dirs that have server and hook entries. */
const HOSTS = ["claude-code", "codex", "copilot", "grok"];

// The function head and end of a program the code cache compiles as read (core/common/code-cache.ts, compiledSource).
const WRAPPER_HEAD = "(function (exports, require, module, __filename, __dirname) { ";
const WRAPPER_FOOT = "\n});";

// ESM bundles of CommonJS dependencies need a `require`.
const banner = "import { createRequire as __peerpostCreateRequire } from 'node:module'; const require = __peerpostCreateRequire(import.meta.url);";

/** core/records/zod.ts loads zod/mini with require(), on first use; bundles get only the functions core/records/zod-exports.ts lists. */
const zodExports = {
  name: "zod-exports",
  setup(context) {
    context.onResolve({ filter: /^zod\/mini$/ }, (args) => (args.kind === "require-call" ? { path: join(root, "core/records/zod-exports.ts") } : undefined));
  },
};

/**
 * The web view's page (core/ui/page/): index.html, style.css and icon.svg as text, and app.ts compiled for the
 * browser into one script, all exported as strings by the virtual module "peerpost-ui-assets", so the
 * page ships inside dist/cli.mjs and loads nothing from anywhere else.
 */
const uiAssets = {
  name: "ui-assets",
  setup(context) {
    context.onResolve({ filter: /^peerpost-ui-assets$/ }, () => ({ path: "peerpost-ui-assets", namespace: "ui-assets" }));
    context.onLoad({ filter: /.*/, namespace: "ui-assets" }, async () => {
      const page = join(root, "core/ui/page");
      const client = await build({ entryPoints: [join(page, "app.ts")], bundle: true, platform: "browser", format: "iife", target: "es2022", minify: true, write: false, logLevel: "warning" });
      const text = (name) => JSON.stringify(readFileSync(join(page, name), "utf8"));
      return {
        contents: `export const html = ${text("index.html")}; export const css = ${text("style.css")}; export const icon = ${text("icon.svg")}; export const script = ${JSON.stringify(client.outputFiles[0].text)};`,
        loader: "js",
        watchFiles: ["index.html", "style.css", "icon.svg"].map((name) => join(page, name)),
      };
    });
  },
};

/**
 * pg asks on load whether it runs in a Cloudflare Worker by constructing a `Response`, which on Node 20
 * loads the whole fetch implementation (undici): ~30 ms of every process that opens the PostgreSQL
 * store, a prompt hook included. peerpost runs on Node only, so the bundles take Node's sockets directly,
 * and node:crypto's synchronous calls for SCRAM instead of pg's Web Crypto ones (loaded at start-up).
 * Modules the driver loads but a connection over TCP does not use stay unloaded until used.
 */
const pgForNode = {
  name: "pg-for-node",
  setup(context) {
    context.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]crypto[\\/]utils\.js$/ }, (args) => {
      const exports = ["postgresMd5PasswordHash", "randomBytes", "deriveKey", "sha256", "hashByName", "hmacSha256", "md5"];
      const source = readFileSync(args.path, "utf8");
      if (!exports.every((name) => source.includes(`  ${name},`))) throw new Error(`pg's ${args.path} changed: check core/store/postgres/pg-crypto.ts still provides its exports`);
      return { contents: `module.exports = require(${JSON.stringify(join(root, "core/store/postgres/pg-crypto.ts"))});`, loader: "js", resolveDir: root };
    });
    context.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const probe = "function getStreamFuncs() {\n  if (isCloudflareRuntime()) {";
      if (!source.includes(probe)) throw new Error(`pg's ${args.path} changed: check the Cloudflare probe is still skipped`);
      return { contents: source.replace(probe, "function getStreamFuncs() {\n  if (false) {"), loader: "js" };
    });
    // node:dns (~1.5 ms to load) serves only the native driver's connection string: required when used.
    context.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]connection-parameters\.js$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      const eager = "const dns = require('dns')\n";
      if (!source.includes(eager) || (source.match(/dns\./g) ?? []).length !== 1 || !source.includes("dns.lookup(")) throw new Error(`pg's ${args.path} changed: check its use of node:dns is still the one lookup`);
      return { contents: source.replace(eager, "const dns = { lookup: (...args) => require('dns').lookup(...args) }\n"), loader: "js" };
    });
  },
};

// The pty library ships a native binary per platform: it stays a runtime dependency, loaded from node_modules.
const common = { bundle: true, platform: "node", target: "node20", minify: true, legalComments: "eof", logLevel: "warning", plugins: [zodExports, uiAssets, pgForNode], external: ["@lydell/node-pty"] };

/** Servers: single ESM files. */
function bundleEsm(entry, outfile) {
  return build({ ...common, entryPoints: [join(root, entry)], outfile: join(out, outfile), format: "esm", banner: { js: banner } });
}

/**
 * Hooks (and the CLI's loader): CommonJS files. A prompt hook must start nearly as fast as bare node, and a CommonJS entry
 * skips the ES module loader; dependencies only some paths need (the lock, atomic writes, ulid) stay
 * behind lazy requires and are never evaluated by a hook that only reads. hooks.cjs (hooks/loader.ts,
 * the same for every host) runs the host's hook-program.cjs (session start, prompt, stop) or edit-program.cjs
 * (before and after a tool call: hooks/programs.ts) from V8's code cache.
 */
function bundleHooks(entry, outfile, { wrapped = false } = {}) {
  return build({
    ...common,
    entryPoints: [join(root, entry)],
    outfile: join(out, outfile),
    format: "cjs",
    // The program hooks.cjs compiles is written as the function it compiles (core/common/code-cache.ts, compiledSource).
    ...(wrapped ? { banner: { js: WRAPPER_HEAD }, footer: { js: WRAPPER_FOOT } } : {}),
    plugins: [vendorOutside, pgForNode],
    // core/records/zod.ts reads import.meta only where `require` is missing, which a CommonJS bundle never is.
    logOverride: { "empty-import-meta": "silent" },
  });
}

/**
 * Packages the core requires lazily (on first write, first id, a record the fast checks leave to zod,
 * or a PostgreSQL store), with the file each becomes: bundled beside the hooks, not into them.
 */
const LAZY_PACKAGES = { "proper-lockfile": "proper-lockfile", "write-file-atomic": "write-file-atomic", ulid: "ulid", pg: "pg", "zod/mini": "zod-mini" };

/** Keeps the lazy packages out of the hook file, so a hook that does not need one never even parses it. */
const vendorOutside = {
  name: "vendor-outside",
  setup(context) {
    const names = Object.keys(LAZY_PACKAGES).map((name) => name.replace("/", "\\/"));
    context.onResolve({ filter: new RegExp(`^(${names.join("|")})$`) }, (args) => ({ path: `./vendor/${LAZY_PACKAGES[args.path]}.cjs`, external: true }));
  },
};

function bundleVendor(name, outfile) {
  return build({ ...common, stdin: { contents: `module.exports = require(${JSON.stringify(name)});`, resolveDir: root, loader: "js" }, outfile: join(out, outfile), format: "cjs" });
}

/**
 * The command line: dist/cli.cjs, the package's bin, only requires cli-start.cjs (core/cli/start.ts),
 * which runs cli-light.cjs (the commands that need neither the MCP server nor the web view) or
 * cli-program.cjs (every command) from V8's code cache, as hooks.cjs runs a hook program. The bin is
 * CommonJS: an ES module entry costs node its ES module loader's resolve, read and link (~10 ms). The
 * same in dist/cli.mjs, for the `node dist/cli.mjs …` of a clone and the MCP server entries that name it:
 * it imports nothing else, as an ES module's import of node:fs alone loads the streams. The program is
 * written as the function the cache compiles; its `import.meta.url` is its own file's URL, as in an ES module.
 */
const CLI_BIN = `#!/usr/bin/env node
require("./cli-start.cjs");
`;
const CLI_BIN_ESM = `#!/usr/bin/env node
import { createRequire } from "node:module";
createRequire(import.meta.url)("./cli-start.cjs");
`;

function bundleCliProgram(entry, outfile) {
  return build({
    ...common,
    entryPoints: [join(root, entry)],
    outfile: join(out, outfile),
    format: "cjs",
    define: { "import.meta.url": "__peerpostModuleUrl" },
    // Strict as the ES modules it is built from: the directive must come before the URL's declaration.
    banner: { js: `${WRAPPER_HEAD}"use strict"; const __peerpostModuleUrl = require("node:url").pathToFileURL(__filename).href;` },
    // A compiled script has no loader for import(): a package is imported as require() gives it.
    supported: { "dynamic-import": false },
    footer: { js: WRAPPER_FOOT },
  });
}

mkdirSync(join(out, "dist"), { recursive: true });
writeFileSync(join(out, "dist/cli.cjs"), CLI_BIN);
writeFileSync(join(out, "dist/cli.mjs"), CLI_BIN_ESM);
const bundles = [bundleHooks("core/cli/start.ts", "dist/cli-start.cjs"), bundleCliProgram("core/cli/cli.ts", "dist/cli-program.cjs"), bundleCliProgram("core/cli/light.ts", "dist/cli-light.cjs")];
for (const host of HOSTS) {
  bundles.push(bundleEsm(`plugins/${host}/server.ts`, `dist/${host}/server.mjs`), bundleHooks(`plugins/${host}/hooks.ts`, `dist/${host}/hook-program.cjs`, { wrapped: true }));
  bundles.push(bundleHooks(`plugins/${host}/edit-hooks.ts`, `dist/${host}/edit-program.cjs`, { wrapped: true }), bundleHooks("hooks/loader.ts", `dist/${host}/hooks.cjs`));
  for (const [name, file] of Object.entries(LAZY_PACKAGES)) bundles.push(bundleVendor(name, `dist/${host}/vendor/${file}.cjs`));
}
await Promise.all(bundles);
for (const bin of ["dist/cli.cjs", "dist/cli.mjs"]) chmodSync(join(out, bin), 0o755);

// A program with one non-ASCII character is read and compiled as two-byte text: one `❯` in a regular
// expression made the whole CLI program so, slower to read and to scan at every start. esbuild escapes
// strings but not regular expressions: those are written with \u escapes.
const programs = ["dist/cli-start.cjs", "dist/cli-program.cjs", "dist/cli-light.cjs", ...HOSTS.flatMap((host) => ["hooks.cjs", "hook-program.cjs", "edit-program.cjs"].map((file) => `dist/${host}/${file}`))];
for (const program of programs) {
  const at = readFileSync(join(out, program)).findIndex((byte) => byte > 0x7f);
  if (at >= 0) throw new Error(`${program} has a non-ASCII character at byte ${at}: write it with a \\u escape`);
}

// Manifests come from plugins/manifests.ts, bundled in memory and imported.
const generator = await build({ entryPoints: [join(root, "plugins/manifests.ts")], bundle: true, platform: "node", format: "esm", write: false, logLevel: "warning" });
const { manifestFiles } = await import("data:text/javascript;base64," + Buffer.from(generator.outputFiles[0].text).toString("base64"));
const files = manifestFiles({ version: pkg.version, description: pkg.description, license: pkg.license, repository: pkg.repository.url.replace(/\.git$/, ""), author: pkg.author.name });
for (const [path, content] of Object.entries(files)) {
  mkdirSync(dirname(join(out, path)), { recursive: true });
  writeFileSync(join(out, path), content);
}

if (!check) {
  for (const path of Object.keys(files).filter((path) => !path.startsWith("dist/"))) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), readFileSync(join(out, path)));
  }
  const previous = join(out, "previous-dist");
  if (existsSync(join(root, "dist"))) renameSync(join(root, "dist"), previous);
  renameSync(join(out, "dist"), join(root, "dist"));
  rmSync(out, { recursive: true, force: true });
  console.error(`built ${bundles.length} bundles and ${Object.keys(files).length} manifests`);
  process.exit(0);
}

function listFiles(base, dir, found = []) {
  if (!existsSync(dir)) return found;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listFiles(base, path, found);
    else found.push(relative(base, path));
  }
  return found;
}

const expected = new Set([...listFiles(out, join(out, "dist")), ...Object.keys(files)]);
const actual = new Set([...listFiles(root, join(root, "dist")), ...Object.keys(files).filter((path) => existsSync(join(root, path)))]);
const problems = [];
for (const path of expected) {
  if (!actual.has(path)) problems.push(`missing: ${path}`);
  else if (!readFileSync(join(root, path)).equals(readFileSync(join(out, path)))) problems.push(`stale: ${path}`);
}
for (const path of actual) if (!expected.has(path)) problems.push(`not built from the sources: ${path}`);
rmSync(out, { recursive: true, force: true });
if (problems.length > 0) {
  console.error(`dist/ does not match the sources:\n  ${problems.join("\n  ")}\nRun \`npm run build\` and commit the result.`);
  process.exit(1);
}
console.error("dist/ matches the sources");
