// Whether a session's turn has ended: the prompt hook records when a turn starts, the stop hook when it
// ends, and a live transport records the turn it types. Kept per session in a small file of the state
// dir (turns/<address>.json, 0600): this machine's live transports are its only readers, and the newest
// time of each kind is all they need, so a plain overwrite is exact. Hooks write it only for a session
// in a terminal peerpost may type into, so other sessions cost their hooks no write.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, readStateFile, writeStateFile } from "../security/trust.js";

export interface TurnState {
  /** When the last turn started (a prompt was submitted, or typed by peerpost). */
  prompt?: string;
  /** When the last turn ended (Stop / agentStop). */
  stop?: string;
}

function turnFile(stateDir: string, address: string): string {
  return join(stateDir, "turns", `${address.replace(":", "_")}.json`);
}

export function readTurn(stateDir: string, address: string): TurnState {
  try {
    // Never through a link nor from a FIFO (trust.ts): a hook that waited on one would hold the host's prompt.
    const parsed = JSON.parse(readStateFile(turnFile(stateDir, address))) as { v?: number; prompt?: unknown; stop?: unknown };
    const turn: TurnState = {};
    if (typeof parsed.prompt === "string") turn.prompt = parsed.prompt;
    if (typeof parsed.stop === "string") turn.stop = parsed.stop;
    return turn;
  } catch {
    return {};
  }
}

/**
 * A hook's record of a turn edge at `atMs`, for a session that runs in a terminal peerpost may type into
 * (tmux, or `peerpost run`, which sets PEERPOST_RUN), or whose turns are already followed; nothing
 * otherwise. The time is formatted only when recorded: the first toISOString of a process loads the time zone.
 */
export function recordTerminalTurn(stateDir: string, address: string, edge: "prompt" | "stop", atMs: number, env: NodeJS.ProcessEnv): void {
  if (env["TMUX"] || env["PEERPOST_RUN"] || existsSync(turnFile(stateDir, address))) recordTurn(stateDir, address, edge, new Date(atMs).toISOString());
}

/** Records that a turn started or ended now; best effort (a hook never fails on it). */
export function recordTurn(stateDir: string, address: string, edge: "prompt" | "stop", at: string): void {
  try {
    ensurePrivateDir(join(stateDir, "turns"));
    writeStateFile(turnFile(stateDir, address), JSON.stringify({ v: 1, ...readTurn(stateDir, address), [edge]: at }));
  } catch {
    // Without it a live transport sees no turn end and types nothing: it fails closed.
  }
}

/** A session is idle when it never started a turn, or its last turn ended after it started. */
export function turnEnded(turn: TurnState): boolean {
  if (turn.prompt === undefined) return true;
  return turn.stop !== undefined && Date.parse(turn.stop) >= Date.parse(turn.prompt);
}
