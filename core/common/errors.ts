// Errors are values: every failure peerpost reports carries a stable code, a message, details and a hint
// (one text, or one per reader: see hints.ts).
import { hintFor, type Audience, type Hint } from "./hints.js";

export const ERROR_CODES = [
  "invalid_arguments",
  "not_found",
  "ambiguous",
  "wrong_recipient",
  "already_resolved",
  "no_current_session",
  "body_too_large",
  "hop_limit",
  "permission_denied",
  "claim_conflict",
  "task_blocked",
  "state_io_error",
  "unsupported",
  "host_not_found",
  "internal_error",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorValue {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  hint?: string;
}

export class PeerpostError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly hint: string | Hint | undefined;

  constructor(code: ErrorCode, message: string, options: { details?: Record<string, unknown>; hint?: string | Hint; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PeerpostError";
    this.code = code;
    this.details = options.details;
    this.hint = options.hint;
  }

  /** The error as a value for one reader: tool results are read by models, CLI output by people. */
  toValue(audience: Audience = "model"): ErrorValue {
    const value: ErrorValue = { code: this.code, message: this.message };
    if (this.details !== undefined) value.details = this.details;
    const hint = hintFor(this.hint, audience);
    if (hint !== undefined) value.hint = hint;
    return value;
  }
}

/** Turns anything thrown into an error value; unknown failures become `internal_error`. */
export function toErrorValue(error: unknown, audience: Audience = "model"): ErrorValue {
  if (error instanceof PeerpostError) return error.toValue(audience);
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal_error", message, hint: "This is a bug in peerpost; `peerpost doctor` shows the state, and the error log is under the state dir's logs/." };
}

/** Wraps a filesystem error from the state dir as `state_io_error` (or `permission_denied`). */
export function ioError(action: string, path: string, cause: unknown): PeerpostError {
  const errno = (cause as NodeJS.ErrnoException | undefined)?.code;
  const denied = errno === "EACCES" || errno === "EPERM" || errno === "EROFS";
  return new PeerpostError(denied ? "permission_denied" : "state_io_error", `Could not ${action} ${path}: ${errno ?? (cause instanceof Error ? cause.message : String(cause))}`, {
    details: { path, errno: errno ?? null },
    hint: denied
      ? "Check that the state dir and its files belong to you (dir 0700, files 0600), or point PEERPOST_HOME at a writable directory."
      : "Check free disk space and that the state dir exists; `peerpost doctor` inspects it.",
    cause,
  });
}
