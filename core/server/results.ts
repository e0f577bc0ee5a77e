// Tool results: `{ok: true, …}` or `{ok: false, error: {code, message, details, hint}}` with isError,
// the same object as text content and as structuredContent.
import { toErrorValue, type ErrorValue } from "../common/errors.js";

export interface Warning {
  code: string;
  message: string;
  field?: string;
}

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

export function okResult(payload: Record<string, unknown>, warnings: Warning[]): ToolResult {
  const structured = { ok: true, ...payload, warnings: [...warnings, ...((payload.warnings as Warning[] | undefined) ?? [])] };
  return { content: [{ type: "text", text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
}

export function errorResult(error: unknown, warnings: Warning[] = []): ToolResult {
  const value: ErrorValue = toErrorValue(error);
  const structured: Record<string, unknown> = { ok: false, error: value };
  if (warnings.length > 0) structured.warnings = warnings;
  return { content: [{ type: "text", text: JSON.stringify(structured, null, 2) }], structuredContent: structured, isError: true };
}
