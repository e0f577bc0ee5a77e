// The import-cycle check that npm test runs: it must find cycles through value, type-only, re-export and
// dynamic imports across folders, and nothing where the graph has none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error: a plain ES module script without type declarations
import { cycles, importGraph } from "../../scripts/check-cycles.mjs";

function tree(t: { after: (fn: () => void) => void }, files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), "peerpost-cycles-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return Object.entries(files).map(([name, text]) => {
    const path = join(dir, name);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
    return path;
  });
}

const groups = (files: string[]): string[][] => (cycles(importGraph(files)) as string[][]).map((group) => group.map((file) => file.replace(/^.*\/peerpost-cycles-[^/]+\//, "")).sort());

test("a cycle through a type-only import across folders is found, and files outside it are not named", (t) => {
  const files = tree(t, {
    "mail/a.ts": 'import { b } from "../store/b.js";\nexport const a = b;\n',
    "store/b.ts": 'import type { C } from "./c.js";\nexport const b: C | 1 = 1;\n',
    "store/c.ts": 'export type { A } from "../mail/a.js";\nexport type C = number;\n',
    "leaf.ts": 'import { a } from "./mail/a.js";\nexport const leaf = a;\n',
  });
  assert.deepEqual(groups(files), [["mail/a.ts", "store/b.ts", "store/c.ts"]]);
});

test("a dynamic import back to the importer is a cycle; an acyclic graph has none", (t) => {
  const cyclic = tree(t, {
    "x.ts": 'export const x = 1;\nexport async function y() { return (await import("./y.js")).y; }\n',
    "y.ts": 'import {\n  x,\n} from "./x.js";\nexport const y = x;\n',
  });
  assert.deepEqual(groups(cyclic), [["x.ts", "y.ts"]]);
  const acyclic = tree(t, {
    "x.ts": 'import { y } from "./y.js";\nexport const x = y;\n',
    "y.ts": 'import { readFileSync } from "node:fs";\nexport const y = readFileSync;\n',
  });
  assert.deepEqual(groups(acyclic), []);
});
