// What the core server needs from a host plugin: how to tell which session it serves, how to find the
// host process, and optionally how to push a message into the running session.
import type { HostName } from "../common/config.js";
import { ID_PATTERN } from "../common/address.js";
import type { ReceiptRecord, SessionHost } from "../records/schemas.js";
import type { ProcessInfo } from "../sessions/process-tree.js";
import type { Sessions } from "../sessions/registry.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Peerpost } from "../peerpost.js";
import type { MessageState } from "../mail/fold.js";
import type { InputLineReader } from "../live/screen.js";
import type { LiveRefusal } from "../live/rules.js";

/** Where an identity came from. Only runtime sources (host env, MCP _meta, the registry, the host's own protocol seen by a shim) are verified. */
export type IdentitySource = "PEERPOST_ADDRESS" | "host-env" | "mcp-meta" | "registry" | "host-protocol";

export interface Identity {
  address: string;
  sessionId: string;
  source: IdentitySource;
  /** e.g. the variable or _meta key that carried it. */
  detail: string;
  verified: boolean;
  /** Set when the identity is a session claimed from another running host: why it is not verified. */
  claim?: string;
}

/**
 * What `deliver` throws when the delivery may have happened (a terminal took the typing and never answered):
 * the push loop keeps its claim, so the message is never delivered twice, and it stays unread for the hooks.
 */
export class DeliveryUnsure extends Error {}

/** A host's live push into its running session; the push loop (push.ts) claims each message before `deliver`. */
export interface PushTransport {
  /** Recorded as the `via` of deliveries, e.g. "channel" or "codex-turn". */
  name: string;
  /** Whether this transport can deliver now, and why (not). */
  availability(): { available: boolean; reason: string };
  deliver(message: MessageState, content: string): Promise<void>;
  /** Asked before a message is claimed: why it cannot be delivered now (it stays pending), or undefined to go ahead. */
  ready?(message: MessageState): Promise<string | undefined>;
  /**
   * A live transport (core/live/rules.ts: Claude's inbox, tmux, pty, shims): it gets only open requests,
   * within the wake budget, and its content is the live note (never the body). See docs/live-delivery.md.
   */
  live?: boolean;
  /** The recipient's own policy for this message now (e.g. Claude's crossSessionInbound): a refusal keeps it for the hooks. */
  admit?(message: MessageState): LiveRefusal | undefined;
  /** A due reminder for an open request, as a short note (no body). */
  remind?(note: string): Promise<void>;
  /** Told which session the loop serves (a transport that targets the session by id needs it). */
  bind?(identity: Identity): void;
  /** Releases connections when the server stops. */
  close?(): void;
}

export interface IdentityContext {
  env: NodeJS.ProcessEnv;
  /** The `_meta` of the current tool call, when the host sends one. */
  meta: Record<string, unknown> | undefined;
  /** The host CLI's process (nearest matching ancestor), if found. */
  hostProcess: ProcessInfo | undefined;
  sessions: Sessions;
}

export interface HostAdapter {
  host: HostName;
  /** The registry's host name for sessions of this host (none for the generic adapter). */
  sessionHost: SessionHost | undefined;
  /** Recognises the host CLI among this process's ancestors. */
  isHostProcess(info: ProcessInfo): boolean;
  /** Which session this server serves, from what the host provides; undefined when it cannot tell (yet). */
  identify(context: IdentityContext): Identity | undefined;
  /** Finds the host TUI's input line on its screen, so a terminal transport types only when it is empty. */
  terminalInputLine?: InputLineReader;
  /** Live push into the session, where the host has a transport. */
  createPush?(server: Server, peerpost: Peerpost, context: IdentityContext): PushTransport;
  /** Extra MCP capabilities to declare (e.g. a host's experimental push channel). */
  experimentalCapabilities?: Record<string, object>;
  /** Host-specific facts for `health` (hooks declared/trusted, limits). */
  describe?(context: IdentityContext): Record<string, unknown>;
  /** Extra text for the server's MCP instructions. */
  instructions?: string;
}

/** How a receipt records where the sender's identity came from: host runtime, else the environment. */
export function receiptOrigin(identity: Identity, withCwd = true): ReceiptRecord["origin"] {
  const origin: ReceiptRecord["origin"] = { source: identity.verified ? "host" : "env", detail: identity.source, pid: process.pid };
  if (withCwd) origin.cwd = process.cwd();
  return origin;
}

/** Reads an id from a variable when it fits the address charset. */
export function sessionIdFromEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value !== undefined && ID_PATTERN.test(value) ? value : undefined;
}

export const genericAdapter: HostAdapter = {
  host: "generic",
  sessionHost: undefined,
  isHostProcess: () => false,
  identify: () => undefined,
};
