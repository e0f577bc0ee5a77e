// From what a person calls a session to candidate addresses: ranked by name, session id, working dir,
// title, host, whether it runs and how recently it was seen, each with its reasons. Sessions known only
// from the hosts' own files are candidates too. Never a pick: the
// caller chooses and then messages the exact address.
import { basename } from "node:path";
import { PeerpostError } from "../common/errors.js";
import type { SessionEntry } from "./registry.js";
import { withHostFiles, type DiscoveredSession } from "./discovery.js";
import type { Peerpost } from "../peerpost.js";

/** What ranking looks at; sessions peerpost has not seen yet are given `seen: false`. */
export type Rankable = Pick<SessionEntry, "address" | "host" | "sessionId" | "name" | "cwd" | "title" | "alive" | "lastSeen"> & Partial<Pick<SessionEntry, "machine" | "local" | "leftFor">> & { seen?: boolean };

export interface Candidate {
  address: string;
  host: string;
  name?: string;
  cwd?: string;
  title?: string;
  alive: boolean;
  /** False for a session known only from its host's files: a message registers it. */
  seen: boolean;
  /** Another machine's session: `alive` is false there because liveness is known only on its own machine. */
  machine?: string;
  lastSeen: string;
  score: number;
  reasons: string[];
}

const HOST_WORDS: Record<string, string[]> = { "claude-code": ["claude", "claude-code"], codex: ["codex"], copilot: ["copilot"], grok: ["grok"] };
const HOUR_MS = 3_600_000;

function textMatch(field: string, value: string | undefined, word: string, weights: [number, number, number]): [number, string] | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (lower === word) return [weights[0], `${field} is "${value}"`];
  if (lower.startsWith(word)) return [weights[1], `${field} starts with "${word}"`];
  if (lower.includes(word)) return [weights[2], `${field} contains "${word}"`];
  return undefined;
}

function scoreWord(session: Rankable, word: string): Array<[number, string]> {
  const found: Array<[number, string] | undefined> = [
    textMatch("name", session.name, word, [100, 60, 40]),
    session.address.toLowerCase() === word
      ? [100, "exact address"]
      : session.sessionId.toLowerCase().startsWith(word)
        ? [50, `session id starts with "${word}"`]
        : // An address as `agents` shows it, cut short (`codex:019a`).
          word.includes(":") && session.address.toLowerCase().startsWith(word)
          ? [50, `address starts with "${word}"`]
          : undefined,
    session.cwd === undefined ? undefined : (textMatch("working dir", basename(session.cwd), word, [45, 30, 25]) ?? (session.cwd.toLowerCase().includes(word) ? [15, `working dir ${session.cwd} contains "${word}"`] : undefined)),
    textMatch("title", session.title, word, [30, 25, 20]),
    HOST_WORDS[session.host]?.includes(word) ? [30, `host is ${session.host}`] : undefined,
  ];
  return found.filter((match): match is [number, string] => match !== undefined);
}

/** A session from the hosts' files, in the shape ranking takes. */
export function rankableUnseen(session: DiscoveredSession): Rankable {
  const rankable: Rankable = { address: session.address, host: session.host, sessionId: session.sessionId, alive: false, lastSeen: session.lastActivity, seen: false };
  if (session.cwd !== undefined) rankable.cwd = session.cwd;
  if (session.title !== undefined) rankable.title = session.title;
  return rankable;
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/\s+/).filter(Boolean);
}

function sameWords(text: string | undefined, words: string[]): boolean {
  return text !== undefined && wordsOf(text).join(" ") === words.join(" ");
}

/** A name (or else a title) that is the whole query of several words beats one that only shares its words. */
function wholeQueryMatch(session: Rankable, words: string[]): [number, string] | undefined {
  if (sameWords(session.name, words)) return [100 * words.length, `name is "${session.name}"`];
  if (sameWords(session.title, words)) return [30 * words.length, `title is "${session.title}"`];
  return undefined;
}

export function rankSessions(sessions: Rankable[], query: string, now: number): Candidate[] {
  const words = wordsOf(query);
  if (words.length === 0) throw new PeerpostError("invalid_arguments", "resolve needs a query: a name, a working dir, a host or an id prefix.", { details: { field: "query" }, hint: "For example: resolve \"api server\" or resolve codex." });
  const candidates: Candidate[] = [];
  for (const session of sessions) {
    const matches = words.flatMap((word) => scoreWord(session, word));
    if (matches.length === 0) continue;
    // One word's exact name already says so in its reason, but needs the bonus too: partial matches of another session's fields add up past it.
    const whole = wholeQueryMatch(session, words);
    let score = matches.reduce((sum, [points]) => sum + points, 0) + (whole?.[0] ?? 0);
    const reasons = matches.map(([, reason]) => reason);
    if (whole && words.length > 1) reasons.push(whole[1]);
    if (session.alive) {
      score += 10;
      reasons.push("running");
    }
    const age = now - Date.parse(session.lastSeen);
    if (age < HOUR_MS) {
      score += 5;
      reasons.push(`seen ${Math.max(0, Math.round(age / 60_000))} min ago`);
    }
    // Of another machine's session this one cannot tell whether it runs: said, not taken for "not running".
    if (session.local === false) reasons.push(`runs on machine ${session.machine ?? "?"} (whether it runs is known only there)`);
    if (session.leftFor !== undefined) reasons.push(`its Claude Code process left it for ${session.leftFor} (/clear or /resume)`);
    const seen = session.seen ?? true;
    if (!seen) reasons.push("not seen by peerpost yet (from the host's own files)");
    const candidate: Candidate = { address: session.address, host: session.host, alive: session.alive, seen, lastSeen: session.lastSeen, score, reasons };
    if (session.name !== undefined) candidate.name = session.name;
    if (session.cwd !== undefined) candidate.cwd = session.cwd;
    if (session.title !== undefined) candidate.title = session.title;
    if (session.local === false && session.machine !== undefined) candidate.machine = session.machine;
    candidates.push(candidate);
  }
  return candidates.sort((a, b) => b.score - a.score || (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0));
}

/** Every session a query can name: registered ones (with their hosts' titles) and unseen ones. */
export function findSessions(peerpost: Peerpost, query: string): Candidate[] {
  // Listed as people see them: a session its Claude Code process left (/clear, /resume) does not run, though its pid does.
  const all = peerpost.sessions.list({ includeDead: true });
  const view = withHostFiles(peerpost.discover, peerpost.env, all, all.map((session) => session.address));
  return rankSessions([...view.sessions, ...view.unseen.map(rankableUnseen)], query, peerpost.config.now());
}
