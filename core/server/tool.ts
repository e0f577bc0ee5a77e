// The shape of a peerpost tool: strict zod input, the fields of its ok result, and a handler.
import type { z } from "zod";
import type { Peerpost } from "../peerpost.js";
import type { HostAdapter, Identity } from "./adapter.js";
import type { Warning } from "./results.js";
import type { PushLoop } from "./push.js";
import type { WakeDeps } from "../wake/waker.js";

export interface ToolContext {
  peerpost: Peerpost;
  adapter: HostAdapter;
  /** This session's identity; throws `no_current_session` when it cannot be told. */
  identity(): Identity;
  /** The identity if known, without failing. */
  maybeIdentity(): Identity | undefined;
  /** How the identity was looked for, for `health`. */
  identityReport(): Record<string, unknown>;
  push: PushLoop | undefined;
  /** How a send may wake a dormant recipient; absent where the process cannot start a runner. */
  wake?: WakeDeps | undefined;
  /** Aborted when the client cancels the call or the server stops (made on first use). */
  signal: AbortSignal;
  warn(warning: Warning): void;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  input: Input;
  /** The fields of a successful result (besides ok and warnings). */
  output: z.ZodObject;
  annotations: ToolAnnotations;
  run(args: z.output<Input>, context: ToolContext): Promise<Record<string, unknown>>;
}

export function defineTool<Input extends z.ZodObject>(tool: ToolDefinition<Input>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
