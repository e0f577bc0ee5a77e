// Tool arguments: strict (unknown fields are named and refused), null means unset, and a number or
// boolean sent as an exact string is accepted with a `coerced_argument` warning.
import { z } from "zod";
import { PeerpostError } from "../common/errors.js";
import type { Warning } from "./results.js";

export type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; anyOf?: JsonSchema[] };

function expectedType(schema: JsonSchema | undefined): "number" | "integer" | "boolean" | undefined {
  if (!schema) return undefined;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : (schema.anyOf ?? []).flatMap((option) => (option.type ? [option.type].flat() : []));
  if (types.includes("string")) return undefined;
  if (types.includes("integer")) return "integer";
  if (types.includes("number")) return "number";
  if (types.includes("boolean")) return "boolean";
  return undefined;
}

function coerce(value: string, type: "number" | "integer" | "boolean"): unknown {
  if (type === "boolean") return value === "true" ? true : value === "false" ? false : undefined;
  if (!/^-?\d+(\.\d+)?$/.test(value)) return undefined;
  const number = Number(value);
  return type === "integer" && !Number.isInteger(number) ? undefined : number;
}

/** How many unknown argument names a refusal repeats, and how much of each. */
const MAX_ECHOED_NAMES = 20;
export const MAX_ECHOED_NAME_LENGTH = 100;

export function parseArguments<Schema extends z.ZodObject>(schema: Schema, jsonSchema: JsonSchema, raw: unknown): { args: z.output<Schema>; warnings: Warning[] } {
  const warnings: Warning[] = [];
  if (raw === undefined || raw === null) raw = {};
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new PeerpostError("invalid_arguments", "Arguments must be an object.", { details: { fields: [] }, hint: "Pass the arguments as a JSON object with the fields the tool lists." });
  const known = jsonSchema.properties ?? {};
  // Own properties only: `__proto__` or `toString` are no argument of any tool.
  // Echoed clipped, as few as say what is wrong: a name of megabytes (or a million names) made an answer past the client's 10 MiB line.
  const unknown = Object.keys(raw as Record<string, unknown>).filter((key) => !Object.hasOwn(known, key));
  const named = unknown.slice(0, MAX_ECHOED_NAMES).map((key) => key.slice(0, MAX_ECHOED_NAME_LENGTH));
  const more = unknown.length > named.length ? ` and ${unknown.length - named.length} more` : "";
  if (unknown.length > 0)
    throw new PeerpostError("invalid_arguments", `Unknown argument${unknown.length > 1 ? "s" : ""}: ${named.join(", ")}${more}.`, {
      details: { fields: named.map((field) => ({ field, problem: "unknown field" })), allowed: Object.keys(known) },
      hint: `This tool takes: ${Object.keys(known).join(", ") || "no arguments"}.`,
    });
  const cleaned: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (value === null) continue;
    const type = expectedType(known[key]);
    if (type && typeof value === "string") {
      const coerced = coerce(value, type);
      if (coerced !== undefined) {
        warnings.push({ code: "coerced_argument", field: key, message: `${key} was sent as the string ${JSON.stringify(value)}; read it as the ${type} ${String(coerced)}.` });
        cleaned[key] = coerced;
        continue;
      }
    }
    cleaned[key] = value;
  }
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => ({ field: issue.path.map(String).join(".") || "(arguments)", problem: issue.message }));
    throw new PeerpostError("invalid_arguments", `Invalid arguments: ${fields.map((field) => `${field.field}: ${field.problem}`).join("; ")}.`, {
      details: { fields },
      hint: "Fix the named fields; the tool's input schema lists each one with its type and limits.",
    });
  }
  return { args: parsed.data, warnings };
}
