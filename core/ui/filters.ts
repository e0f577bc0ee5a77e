// The page's filters, read from its URL: session, role, conversation, a search over bodies, and how
// many conversations to show. Anything malformed is refused rather than guessed at.
import { ADDRESS_PATTERN, ID_PATTERN } from "../address.js";
import { PeerpostError } from "../errors.js";
import { ULID_PATTERN } from "../schemas.js";
import type { UiFilters } from "./types.js";

export const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;
const MAX_QUERY = 200;

function invalid(field: string, value: string, hint: string): PeerpostError {
  return new PeerpostError("invalid_arguments", `${field} ${JSON.stringify(value.slice(0, 100))} is not valid.`, { details: { field }, hint });
}

export function parseFilters(params: URLSearchParams): UiFilters {
  const filters: UiFilters = { limit: DEFAULT_LIMIT };
  const session = params.get("session") || undefined;
  if (session !== undefined) {
    if (!ADDRESS_PATTERN.test(session)) throw invalid("session", session, "Pick a session from the list.");
    filters.session = session;
  }
  const role = params.get("role") || undefined;
  if (role !== undefined) {
    if (!ID_PATTERN.test(role)) throw invalid("role", role, "Role names are letters, digits, '.', '_' and '-'.");
    filters.role = role;
  }
  const conversation = params.get("conversation") || undefined;
  if (conversation !== undefined) {
    if (!ULID_PATTERN.test(conversation)) throw invalid("conversation", conversation, "Conversation ids are the ids shown on each thread.");
    filters.conversation = conversation;
  }
  const q = params.get("q") || undefined;
  if (q !== undefined) {
    if (q.length > MAX_QUERY) throw invalid("q", q, `Search for at most ${MAX_QUERY} characters.`);
    filters.q = q;
  }
  const limit = params.get("limit");
  if (limit) {
    const value = Number(limit);
    if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT) throw invalid("limit", limit, `Show 1 to ${MAX_LIMIT} conversations.`);
    filters.limit = value;
  }
  return filters;
}
