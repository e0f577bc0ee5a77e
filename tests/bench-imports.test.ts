// `npm run bench` loads peerpost's own modules by path at run time (from .build), so a renamed export breaks a
// row only when the bench runs, and every row after it is lost. Each name a bench script takes from a module
// there is exported by it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./helpers/mcp.js";

/** The names of a destructuring pattern's properties (`{ a, b: c }` gives a and b). */
const namesOf = (pattern: string) => pattern.split(",").map((part) => part.split(":")[0]!.trim()).filter(Boolean);

/** Every module path under .build a bench script imports, with the names it takes from it. */
function benchImports(source: string): Array<{ path: string; names: string[] }> {
  const found: Array<{ path: string; names: string[] }> = [];
  for (const match of source.matchAll(/const \{([^}]+)\} = await import\(join\(root, "\.build\/([^"]+)"\)\)/g)) found.push({ path: match[2]!, names: namesOf(match[1]!) });
  // Several at once: `const [{ a }, { b }] = await Promise.all([load("x.js"), load("y.js")])`.
  for (const match of source.matchAll(/const \[([^\]]+)\] = await Promise\.all\(\[([^\]]+)\]\)/g)) {
    const patterns = [...match[1]!.matchAll(/\{([^}]+)\}/g)].map((pattern) => namesOf(pattern[1]!));
    const paths = [...match[2]!.matchAll(/load\("([^"]+)"\)/g)].map((load) => load[1]!);
    assert.equal(patterns.length, paths.length, `a Promise.all of loads whose patterns and paths do not pair up:\n${match[0]}`);
    paths.forEach((path, i) => found.push({ path, names: patterns[i]! }));
  }
  return found;
}

test("every name the bench takes from peerpost's modules is exported by them", async () => {
  const dir = join(REPO_ROOT, "scripts", "bench");
  const scripts = [join(REPO_ROOT, "scripts", "bench.mjs"), ...readdirSync(dir).filter((name) => name.endsWith(".mjs")).map((name) => join(dir, name))];
  const missing: string[] = [];
  let checked = 0;
  for (const script of scripts) {
    for (const { path, names } of benchImports(readFileSync(script, "utf8"))) {
      const module = (await import(join(REPO_ROOT, ".build", path))) as Record<string, unknown>;
      for (const name of names) {
        checked++;
        if (module[name] === undefined) missing.push(`${relative(REPO_ROOT, script)}: ${name} from ${path}`);
      }
    }
  }
  assert.ok(checked > 20, `found only ${checked} imported names: the patterns above no longer match the bench's imports`);
  assert.deepEqual(missing, []);
});
