// A failed sync that is the shared database being away (state_io_error from a PostgreSQL store): the
// mirrors stay as they are and their copy is still read, where any other failure stops the caller.
import { toErrorValue, type ErrorValue } from "../common/errors.js";
import type { Audience } from "../common/hints.js";
import type { Peerpost } from "../peerpost.js";

/** The outage as an error value (worded for `audience`), or undefined when `error` is anything else. */
export function databaseAway(peerpost: Peerpost, error: unknown, audience: Audience = "model"): ErrorValue | undefined {
  if (peerpost.backend.database === undefined) return undefined;
  const value = toErrorValue(error, audience);
  return value.code === "state_io_error" ? value : undefined;
}
