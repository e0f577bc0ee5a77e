// Checks of values parsed from JSON whose shape is not known yet (a file, a line, a host's stdin).

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
