// The table of ids a compaction keeps for the messages it retires: exact for every ULID (ids of one
// millisecond differ only in their last characters), through growth, replacements and removals, and refusing what is
// not a ULID (which the compaction then keeps folded).
import { test } from "node:test";
import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { UlidTable } from "../core/store/file/ulid-table.js";

function answersAsAMap(table: UlidTable): void {
  const newId = monotonicFactory();
  const reference = new Map<string, { flags: number; a: number; b: number }>();
  // Many ids in one millisecond and then spread over time: neighbours that differ in one character.
  const ids = Array.from({ length: 30_000 }, (_, i) => newId(1_700_000_000_000 + Math.floor(i / 1000) * 997));
  ids.forEach((id, i) => {
    const entry = { flags: i % 128, a: (i * 7919) >>> 0, b: i % 3 === 0 ? 0 : i + 1 };
    assert.equal(table.set(id, entry), true);
    reference.set(id, entry);
  });
  // Removals (backward shift) keep every other entry reachable.
  for (let i = 0; i < ids.length; i += 3) {
    table.delete(ids[i]!);
    reference.delete(ids[i]!);
  }
  table.set(ids[1]!, { flags: 5, a: 1, b: 2 });
  reference.set(ids[1]!, { flags: 5, a: 1, b: 2 });
  // A replacement changes a held entry only, and never grows the table.
  const size = table.size;
  assert.equal(table.replace(ids[4]!, { flags: 3, a: 9, b: 0 }), true);
  reference.set(ids[4]!, { flags: 3, a: 9, b: 0 });
  assert.equal(table.replace(ids[3]!, { flags: 3, a: 9, b: 0 }), false, "a removed id is not put back");
  assert.equal(table.size, size);
  assert.equal(table.size, reference.size);
  for (const id of ids) assert.deepEqual(table.get(id), reference.get(id), id);
  // An id one character away from a stored one is another id.
  const stored = ids[2]!;
  const neighbour = stored.slice(0, 25) + (stored[25] === "0" ? "1" : "0");
  if (!reference.has(neighbour)) assert.equal(table.has(neighbour), false);
  assert.equal(table.set("not-a-ulid", { flags: 1, a: 0, b: 0 }), false);
  assert.equal(table.set("01ARZ3NDEKTSV4RRFFQ69G5FAU", { flags: 1, a: 0, b: 0 }), false, "U is not in the alphabet");
  assert.equal(table.has("not-a-ulid"), false);
}

test("the id table answers as a Map would, through growth and removals, and refuses ids that are not ULIDs", () => {
  answersAsAMap(new UlidTable());
});

test("an id table told how many entries are coming grows to any size, not only doubling, and answers the same", () => {
  const sizes: number[] = [];
  // Room for 7,001 entries at the first growth: a capacity no power of two, and one growth more past it.
  answersAsAMap(
    new UlidTable((count) => {
      sizes.push(count);
      return sizes.length === 1 ? 7001 : count * 1.5;
    }),
  );
  assert.ok(sizes.length >= 2 && sizes.length < 8, `grew ${sizes.length} times`);
});

test("an id table whose entries have no numbers answers 0 for them, and keeps those it is given later", () => {
  const newId = monotonicFactory();
  const table = new UlidTable();
  const ids = Array.from({ length: 3000 }, () => newId(1_700_000_000_000));
  ids.forEach((id) => table.set(id, { flags: 1, a: 0, b: 0 }));
  table.set(ids[10]!, { flags: 2, a: 7, b: 9 });
  table.delete(ids[5]!);
  assert.deepEqual(table.get(ids[0]!), { flags: 1, a: 0, b: 0 });
  assert.deepEqual(table.get(ids[10]!), { flags: 2, a: 7, b: 9 });
  assert.equal(table.get(ids[5]!), undefined);
});
