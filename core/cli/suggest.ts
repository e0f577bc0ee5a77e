// "Did you mean": the closest known word to a mistyped one, when it is close enough to be a typo.

/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function distance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, index) => index)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/** The known word nearest to `word` (a prefix counts as near), or undefined when none is plausibly meant. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; score: number } | undefined;
  for (const candidate of known) {
    const score = candidate.startsWith(word) && word.length >= 2 ? 0.5 : distance(word, candidate);
    if (score <= Math.max(1, Math.floor(candidate.length / 3)) && (!best || score < best.score)) best = { word: candidate, score };
  }
  return best?.word;
}

/** " (did you mean X?)" or "". */
export function didYouMean(word: string, known: readonly string[], prefix = ""): string {
  const found = closest(word, known);
  return found === undefined ? "" : ` (did you mean ${prefix}${found}?)`;
}
