// A run's token usage as its receipt carries it (tags `tokens_in=…`, `tokens_cached=…`, `tokens_out=…`).
import assert from "node:assert/strict";

/** Asserts a receipt's tags carry a usage of at least `input` and `output` tokens (a fake model's counts, summed over its calls). */
export function assertUsageAtLeast(tags: readonly string[] | undefined, input: number, output: number): void {
  const count = (name: string) => Number(tags?.find((tag) => tag.startsWith(`${name}=`))?.slice(name.length + 1) ?? NaN);
  const used = { input: count("tokens_in"), cached: count("tokens_cached"), output: count("tokens_out") };
  assert.ok(used.input >= input && used.output >= output && used.cached >= 0 && used.cached <= used.input, `usage tags ${JSON.stringify(tags)}`);
}
