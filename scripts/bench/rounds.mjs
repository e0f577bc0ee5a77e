// Rows measured in interleaved rounds: this machine's rates drift by a third within minutes, so a row
// compares two rates taken in the same round and reports the median round.

/** Of the rounds, the one whose `key`/`baseline` ratio is the median (the round and its two values), and every round's ratio. */
export function medianRound(rounds, key, baseline = "raw") {
  const ratio = (round) => round[key] / round[baseline];
  const middle = [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)];
  return { round: middle, value: middle[key], baseline: middle[baseline], spread: rounds.map((round) => ratio(round).toFixed(2)).join(" ") };
}
