// How long a claim lasts: "90s", "30m", "2h", "1d"; from a minute to a week, 2 hours by default.
import { PeerpostError } from "../common/errors.js";

export const DEFAULT_TTL = "2h";
const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 7 * 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseTtl(ttl: string = DEFAULT_TTL): number {
  const match = /^(\d{1,9})(s|m|h|d)$/.exec(ttl);
  const ms = match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
  if (!(ms >= MIN_TTL_MS && ms <= MAX_TTL_MS))
    throw new PeerpostError("invalid_arguments", `ttl ${JSON.stringify(ttl.slice(0, 40))} is not a duration from 1m to 7d.`, {
      details: { field: "ttl", value: ttl.slice(0, 40) },
      hint: "Give a number with a unit s, m, h or d, from 1m to 7d (e.g. 30m, 2h); claim again before it runs out to renew it.",
    });
  return ms;
}
