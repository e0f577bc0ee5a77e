// A host's hook dialect: how its stdin JSON names things, and how it wants context or a block back.
import { ID_PATTERN, type SessionKind } from "../core/common/address.js";
import { isPlainObject } from "../core/common/values.js";
import type { SessionHost } from "../core/records/schemas.js";
import type { ProcessInfo } from "../core/sessions/process-tree.js";

/**
 * pre-tool: the host is about to run a tool (an edit is checked against the claims); post-tool: it ran one
 * (where a host shows no note before a tool, `warn` tells the model after the edit).
 */
export type HookEvent = "session-start" | "user-prompt" | "stop" | "pre-tool" | "post-tool";

/** The tool a pre-tool event is about, as the host names it, with its arguments. */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
}

/** What every dialect extracts from the host's stdin. */
export interface HookInput {
  sessionId: string;
  cwd?: string;
  /** startup | resume | clear | compact, for session start. */
  source?: string;
  /**
   * Never block this stop: the host says it already follows a block, or (as the dialect reads it) a
   * block could not run another turn anyway, e.g. a stop fired while the session shuts down.
   */
  stopHookActive: boolean;
  /** For pre-tool: the tool about to run. */
  tool?: ToolCall;
  /** A prompt that is a stop block's own note, which the host sends back as the next prompt (Copilot): told already. */
  followsBlock?: boolean;
}

export interface HookDialect {
  host: SessionHost;
  kind: SessionKind;
  parse(event: HookEvent, input: Record<string, unknown>): HookInput | undefined;
  /** Stdout for context to add (session start, prompt), or undefined when the host shows nothing. */
  context(event: HookEvent, note: string): string | undefined;
  /** Stdout that stops the turn from ending and tells the model why. */
  block(note: string): string | undefined;
  /** Stdout that refuses the tool call and tells the model why (pre-tool). */
  deny(reason: string): string;
  /** Stdout that lets the tool call run and gives the model a note (pre-tool), or undefined where the host shows none. */
  allowWithNote(note: string): string | undefined;
  /** For a host with no note before a tool: stdout that gives the model a note after the call ran (post-tool). */
  noteAfter?(note: string): string;
  /** The paths (absolute, or relative to the session's directory) a tool call writes; empty for a tool that writes no file. */
  writes(tool: ToolCall): string[];
  isHostProcess(info: ProcessInfo): boolean;
}


function text(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/**
 * The stdin fields Claude Code, Codex, Copilot and Grok share, in either spelling: session_id or
 * sessionId, cwd, source, stop_hook_active or stopHookActive.
 */
export function parseClaudeStyle(input: Record<string, unknown>): HookInput | undefined {
  const sessionId = text(input.session_id) ?? text(input.sessionId);
  if (sessionId === undefined || !ID_PATTERN.test(sessionId)) return undefined;
  const parsed: HookInput = { sessionId, stopHookActive: input.stop_hook_active === true || input.stopHookActive === true };
  const cwd = text(input.cwd);
  if (cwd !== undefined) parsed.cwd = cwd;
  const source = text(input.source);
  if (source !== undefined) parsed.source = source;
  const tool = toolCall(input);
  if (tool) parsed.tool = tool;
  return parsed;
}

/**
 * tool_name/toolName with tool_input/toolInput (an object, or a JSON text of one: Copilot's toolArgs). A
 * text that is no JSON is a freeform tool's whole input (Copilot's apply_patch passes the patch so): `input`.
 */
function toolCall(input: Record<string, unknown>): ToolCall | undefined {
  const name = text(input.tool_name) ?? text(input.toolName);
  if (name === undefined) return undefined;
  let args = input.tool_input ?? input.toolInput ?? input.toolArgs;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      args = { input: args };
    }
  }
  return { name, input: isPlainObject(args) ? args : {} };
}

const HOOK_EVENT_NAMES: Record<HookEvent, string> = { "session-start": "SessionStart", "user-prompt": "UserPromptSubmit", stop: "Stop", "pre-tool": "PreToolUse", "post-tool": "PostToolUse" };

/** `hookSpecificOutput.additionalContext`, as Claude Code and Codex read it. */
export function claudeStyleContext(event: HookEvent, note: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: HOOK_EVENT_NAMES[event], additionalContext: note } });
}

export function claudeStyleBlock(note: string): string {
  return JSON.stringify({ decision: "block", reason: note });
}

/** Claude Code's (and Codex's) refusal of a tool call: permissionDecision deny, with the reason the model sees. */
export function claudeStyleDeny(reason: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } });
}
