// An index file's checksum file (checked-file.ts), rewritten in place at every append: each append is
// read back whole, and a rewrite a crash tore (the new sum's first bytes over the old one) reads as
// damage, never as a sum of the wrong bytes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { appendChecked, IndexDamage, readChecked } from "../core/store/file/checked-file.js";

test("an index file's sum is rewritten in place at each append, and one torn mid-write reads as damage", (t) => {
  const path = join(tempDir(t), "scope.offs");
  let expected = "";
  for (let append = 0; append < 40; append++) {
    const lines = Array.from({ length: append * 7 + 1 }, (_, i) => `${append * 100_000 + i * 37}\n`).join("");
    appendChecked(path, "claude:bob", lines);
    expected += lines;
    assert.equal(readChecked(path, "claude:bob"), expected);
  }
  const sumPath = `${path}.sum`;
  const before = readFileSync(sumPath, "utf8");
  const inode = statSync(sumPath).ino;
  appendChecked(path, "claude:bob", "123456789\n");
  const after = readFileSync(sumPath, "utf8");
  assert.equal(statSync(sumPath).ino, inode, "written in place, not renamed in");
  assert.equal(after.length, JSON.stringify(JSON.parse(after)).length, "no bytes of the old sum past the new one");
  // Each way the rewrite could have been cut short: the new sum's first bytes, the old one's after them.
  for (let cut = 1; cut < after.length; cut++) {
    const torn = after.slice(0, cut) + before.slice(cut);
    if (torn === before || torn === after) continue;
    writeFileSync(sumPath, torn);
    assert.throws(() => readChecked(path, "claude:bob"), IndexDamage, `cut at ${cut}: ${torn}`);
  }
});
