// Token usage of a headless run (wake, launch, fork), read from its host's own output: each host's
// waker picks its usage events, this sums them and names them for receipts.
import type { TokenUsage } from "./waker.js";

type Usage = TokenUsage | undefined;

/** Sums the usage `pick` finds in each JSON line of a host's output; undefined when no line has any. */
export function usageInJsonLines(stdout: string, pick: (event: Record<string, unknown>) => Usage): Usage {
  let total: Usage;
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    const found = typeof event === "object" && event !== null ? pick(event as Record<string, unknown>) : undefined;
    if (found) total = { input: (total?.input ?? 0) + found.input, cachedInput: (total?.cachedInput ?? 0) + found.cachedInput, output: (total?.output ?? 0) + found.output };
  }
  return total;
}

/** A count field of a usage object: a non-negative integer, else 0 (a host that leaves one out). */
export function tokenCount(usage: unknown, field: string): number {
  const value = typeof usage === "object" && usage !== null ? (usage as Record<string, unknown>)[field] : undefined;
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : 0;
}

/** Usage named as Anthropic's API names it (Claude Code, and Grok's output too): input_tokens leaves out the cache's reads and writes. */
export function anthropicStyleUsage(usage: unknown): Usage {
  if (typeof usage !== "object" || usage === null) return undefined;
  const reads = tokenCount(usage, "cache_read_input_tokens");
  return { input: tokenCount(usage, "input_tokens") + tokenCount(usage, "cache_creation_input_tokens") + reads, cachedInput: reads, output: tokenCount(usage, "output_tokens") };
}

/** A receipt's tags for a run's usage: `tokens_in=…`, `tokens_cached=…`, `tokens_out=…`. */
export function usageTags(usage: Usage): string[] {
  return usage ? [`tokens_in=${usage.input}`, `tokens_cached=${usage.cachedInput}`, `tokens_out=${usage.output}`] : [];
}
