// The page's filters, read from its URL: session, role, conversation, a search over bodies, and how
// many conversations to show. Anything malformed is refused rather than guessed at.
import { ADDRESS_PATTERN, ID_PATTERN } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import { ULID_PATTERN } from "../records/schemas.js";
import type { UiFilters } from "./types.js";

export const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;
const MAX_QUERY = 200;

function invalid(field: string, value: string, hint: string): PeerpostError {
  return new PeerpostError("invalid_arguments", `${field} ${JSON.stringify(value.slice(0, 100))} is not valid.`, { details: { field }, hint });
}

/** The text filters: each must match its pattern exactly. */
const TEXT_FILTERS = {
  session: { valid: (value: string) => ADDRESS_PATTERN.test(value), hint: "Pick a session from the list." },
  role: { valid: (value: string) => ID_PATTERN.test(value), hint: "Role names are letters, digits, '.', '_' and '-'." },
  conversation: { valid: (value: string) => ULID_PATTERN.test(value), hint: "Conversation ids are the ids shown on each thread." },
  q: { valid: (value: string) => value.length <= MAX_QUERY, hint: `Search for at most ${MAX_QUERY} characters.` },
} as const;

export function parseFilters(params: URLSearchParams): UiFilters {
  const filters: UiFilters = { limit: DEFAULT_LIMIT };
  for (const [name, rule] of Object.entries(TEXT_FILTERS) as Array<[keyof typeof TEXT_FILTERS, (typeof TEXT_FILTERS)[keyof typeof TEXT_FILTERS]]>) {
    const value = params.get(name);
    if (!value) continue;
    if (!rule.valid(value)) throw invalid(name, value, rule.hint);
    filters[name] = value;
  }
  const limit = params.get("limit");
  if (limit) {
    const value = Number(limit);
    if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT) throw invalid("limit", limit, `Show 1 to ${MAX_LIMIT} conversations.`);
    filters.limit = value;
  }
  return filters;
}
