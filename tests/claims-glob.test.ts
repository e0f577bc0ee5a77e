// Claim patterns: overlap of glob against glob and of path against glob, decided on the patterns
// themselves; case; trailing slashes; `..` and the whole-repository patterns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { matchesEverything, normalisePattern, patternCovers, patternsOverlap } from "../core/claims/glob.js";

test("a pattern covers the paths it matches", () => {
  for (const [pattern, path] of [
    ["src/a.ts", "src/a.ts"],
    ["src/*.ts", "src/a.ts"],
    ["src/**", "src/x/y/z.md"],
    ["**/*.md", "README.md"],
    ["**/*.md", "docs/a/b.md"],
    ["docs/**/*.md", "docs/x.md"],
    ["src/?.ts", "src/a.ts"],
  ])
    assert.ok(patternCovers(pattern!, path!), `${pattern} covers ${path}`);
  for (const [pattern, path] of [
    ["src/a.ts", "src/a.tsx"],
    ["src", "srcs/a.ts"],
    ["src/*.ts", "src/a.tsx"],
    ["src/?.ts", "src/ab.ts"],
    ["src/?.ts", "src//.ts"],
    ["*.md", "docs/a.md"],
    ["docs/**/*.md", "docs.md"],
    ["src/a.ts", "lib/src/a.ts"],
    ["src/*", "src/dir/inside.ts"],
    ["src", "src/a.ts"],
  ])
    assert.ok(!patternCovers(pattern!, path!), `${pattern} does not cover ${path}`);
});

test("two globs overlap exactly when some path is covered by both", () => {
  for (const [a, b] of [
    ["src/**", "src/a.ts"],
    ["src/*.ts", "src/a*"],
    ["src/*.ts", "**/a.ts"],
    ["**/*.md", "docs/**"],
    ["*/x.ts", "a/*"],
    ["src/**", "src/*.ts"],
    ["src/a?c", "src/*c"],
    ["a*b*c", "*x*"],
  ]) {
    assert.ok(patternsOverlap(a!, b!), `${a} overlaps ${b}`);
    assert.ok(patternsOverlap(b!, a!), `${b} overlaps ${a} (symmetric)`);
  }
  for (const [a, b] of [
    ["src/**", "lib/**"],
    ["src/*.ts", "src/*.md"],
    ["*.ts", "*.md"],
    ["src/a?", "src/abc"],
    ["docs/*.md", "src/**"],
    ["a/*/c", "a/b/d"],
    ["*/x", "y/z"],
    ["src", "src/*.ts"],
    ["**/*.md", "src/a.ts"],
  ]) {
    assert.ok(!patternsOverlap(a!, b!), `${a} does not overlap ${b}`);
    assert.ok(!patternsOverlap(b!, a!), `${b} does not overlap ${a} (symmetric)`);
  }
});

test("a single star never crosses a slash; a double star does", () => {
  assert.ok(!patternsOverlap("src/*", "lib/src/x"));
  assert.ok(!patternsOverlap("a*z", "a/z"));
  assert.ok(patternsOverlap("a**z", "a/b/z"));
  assert.ok(!patternsOverlap("a?z", "a/z"));
});

test("case counts unless the file system folds it", () => {
  assert.ok(!patternsOverlap("Src/**", "src/a.ts"));
  assert.ok(patternsOverlap("Src/**", "src/a.ts", { ignoreCase: true }));
  assert.ok(!patternCovers("README.md", "readme.md"));
  assert.ok(patternCovers("README.md", "readme.md", { ignoreCase: true }));
});

test("trailing slashes, dots and repeated slashes normalise away", () => {
  assert.equal(normalisePattern("src/"), "src");
  assert.equal(normalisePattern("./src//a/./b.ts"), "src/a/b.ts");
  assert.equal(normalisePattern("src/***/x"), "src/**/x");
  assert.ok(patternCovers("src", "src/"));
});

test("a path's own stars and question marks are literal", () => {
  assert.ok(!patternCovers("src/a*.ts", "src/b*.ts"));
  assert.ok(patternCovers("src/a*.ts", "src/a*.ts"));
  assert.ok(patternCovers("src/*", "src/a?b"));
});

test("patterns of wildcards alone name the whole repository", () => {
  for (const pattern of ["", ".", "**", "*", "*/**", "**/*", "./**/"]) assert.ok(matchesEverything(pattern), pattern);
  for (const pattern of ["src", "src/**", "*.ts", "**/*.md", "a*"]) assert.ok(!matchesEverything(pattern), pattern);
});
