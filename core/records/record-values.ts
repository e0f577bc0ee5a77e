// The fixed values of record fields, shared by the zod schemas (schemas.ts) and the fast checks
// (record-check.ts), so the two can never disagree on them.

/** Bodies are limited to 64 KiB of UTF-8. */
export const MAX_BODY_BYTES = 64 * 1024;
export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const ANTICIPATIONS = ["reply", "action", "fyi"] as const;
export type Anticipation = (typeof ANTICIPATIONS)[number];
export const RESOLUTIONS = ["reply", "decline", "done"] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

export const ORIGIN_SOURCES = ["explicit", "host", "env", "not_supplied"] as const;
export type OriginSource = (typeof ORIGIN_SOURCES)[number];
export const RECEIPT_KINDS = ["send", "reply", "push", "wake", "launch", "settings", "fork"] as const;
export type ReceiptKind = (typeof RECEIPT_KINDS)[number];
export const DELIVERIES = ["queued", "delivered", "failed", "skipped"] as const;

export const SESSION_HOSTS = ["claude-code", "codex", "copilot", "grok"] as const;
export type SessionHost = (typeof SESSION_HOSTS)[number];
export const SESSION_SOURCES = ["startup", "resume", "clear", "compact", "server", "cli", "discovered"] as const;

/** Why a claim ended: its holder let it go, a person forced it, its TTL ran out, or its holder's session ended. */
export const RELEASE_WHYS = ["released", "forced", "expired", "gone"] as const;
export type ReleaseWhy = (typeof RELEASE_WHYS)[number];

export const TASK_STATUSES = ["pending", "in_progress", "blocked", "done", "failed"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
