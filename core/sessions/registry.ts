// The sessions registry: who is running where. Written by every host's SessionStart hook and by each
// server once it knows its address; the latest record per address wins, except that a record cannot
// move a session away from a host process that is still running: it is written as a claim and kept
// aside (anyone can run a hook from a shell inside their own host). Liveness is the host process.
import type { JsonlLog } from "../log/log.js";
import type { CorruptReport } from "../log/types.js";
import { ScopeIndex } from "../store/file/scope-index.js";
import { SwapFollower } from "../store/file/log-compaction.js";
import { FAR_BEHIND_BYTES } from "../mail/view.js";
import type { LocalStore, StoreFactory } from "../store/local.js";
import { sessionSchema, type SessionHost, type SessionRecord } from "../records/schemas.js";
import { findAncestor, isSameProcess } from "./process-tree.js";
import { isHostProtocol, PTY_VIA } from "./push-kinds.js";
import { PeerpostError } from "../common/errors.js";
import type { DiscoveredSession } from "./discovery.js";
import { HINTS } from "../common/hints.js";
import { escapeVisible } from "../security/escape.js";

export type SessionInput = Omit<SessionRecord, "v" | "type" | "at" | "writerPid" | "claimFrom" | "machine">;

export interface SessionEntry {
  address: string;
  host: SessionHost;
  sessionId: string;
  hostPid?: number;
  hostStart?: number;
  cwd?: string;
  /** Set by the host from the session; untrusted text. */
  title?: string;
  /** A human name: given with `peerpost name`, else the host's title when it has one. */
  name?: string;
  roles: string[];
  /** Live push transport its server or a `peerpost run` wrapper reported (`decidedPush`; "none" without one); undefined when none reported yet. */
  push?: string;
  /** The machine it runs on; undefined for records from before machines were recorded (this machine's). */
  machine?: string;
  /** Whether it runs on this machine: only then is `alive` known (its host pid is checked here). */
  local: boolean;
  /** The latest record that named another host process while this session's own host was running. */
  claim?: SessionClaim;
  alive: boolean;
  /**
   * Set by `list()` on a Claude Code session its process has left for another (/clear, /resume):
   * the session that process runs now. Such a session is listed with `alive: false` (nothing reads its mail
   * while the process runs the other), though `get()` still says its process is alive (claims, wakes).
   */
  leftFor?: string;
  source: SessionRecord["source"];
  firstSeen: string;
  lastSeen: string;
}

export interface SessionClaim {
  hostPid: number;
  /** The host process the session stayed with. */
  ownerPid: number;
  at: string;
}

/** Whether a session may be running: alive here, or on another machine, whose processes this one cannot see. */
export function mayRun(entry: SessionEntry): boolean {
  return entry.alive || !entry.local;
}

/**
 * The host process of another session's holder when that is not this process's own host: the session's
 * registered host runs on this machine and is no ancestor of this process. Anything can name a session
 * (an agent's shell can run a hook or start a server with its id): named from elsewhere, it is a claim.
 */
export function heldByAnotherHost(entry: SessionEntry | undefined): number | undefined {
  const hostPid = entry?.hostPid;
  if (hostPid === undefined || !entry!.local || !entry!.alive) return undefined;
  return findAncestor((info) => info.pid === hostPid) === undefined ? hostPid : undefined;
}

/**
 * A Claude Code session's host process (pid, start time, machine). It runs one session at a time, the one
 * it registered last: after /clear or /resume the earlier one holds no role and reads no mail while it runs.
 */
function processKey(entry: SessionEntry): string | undefined {
  return entry.host === "claude-code" && entry.hostPid !== undefined ? `${entry.hostPid}\n${entry.hostStart}\n${entry.machine}` : undefined;
}

/** For each Claude Code process among `entries`, the session it registered last: the one it runs. */
function newestPerProcess(entries: Iterable<SessionEntry>): Map<string, SessionEntry> {
  const newest = new Map<string, SessionEntry>();
  for (const entry of entries) {
    const key = processKey(entry);
    const seen = key === undefined ? undefined : newest.get(key);
    if (key !== undefined && (seen === undefined || entry.lastSeen > seen.lastSeen)) newest.set(key, entry);
  }
  return newest;
}

/** The session `entry`'s process registered since (/clear, /resume), given newestPerProcess of every session. */
function supersededBy(newest: Map<string, SessionEntry>, entry: SessionEntry): SessionEntry | undefined {
  const now = newest.get(processKey(entry) ?? "");
  return now !== undefined && now !== entry && now.lastSeen > entry.lastSeen ? now : undefined;
}

/** Addresses whose alone-folds a process keeps (`foldOne`). */
const FOLDED_ONE_KEPT = 8;
/** A registry shorter than this is folded whole even by a hook (a few ms); a longer one is read through its index. */
const INDEXED_FROM_BYTES = 64 * 1024;

/** Sort order of ISO times, latest first. */
function latestFirst(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

function byLastSeen(a: SessionEntry, b: SessionEntry): number {
  return latestFirst(a.lastSeen, b.lastSeen);
}

/** What each writer of an address's push last reported, kept beside its folded entry (`decidedPush`). */
interface PushReports {
  server?: string;
  wrapper?: string;
}

const pushReports = new WeakMap<SessionEntry, PushReports>();

/**
 * The push a session is reached by, from what its two writers last reported: its own server (the host's
 * protocol, tmux typing, or none) and a `peerpost run` wrapper around its host (pty, or none once it cannot
 * type; a person's record, `cli`). The host's protocol comes first, then the wrapper's typing. Each
 * writer's latest report counts in whatever order the two landed: they register without a lock, and a
 * writer that looked at the other's report before writing lost one that landed in between.
 */
function decidedPush({ server, wrapper }: PushReports): string | undefined {
  if (isHostProtocol(server)) return server;
  return wrapper === PTY_VIA ? wrapper : (server ?? wrapper);
}

/** Folds one registry record into the latest entry per address: a record depends only on its address's earlier ones. */
function foldRecord(byAddress: Map<string, SessionEntry>, record: SessionRecord): void {
  const previous = byAddress.get(record.address);
  if (record.claimFrom !== undefined && record.hostPid !== undefined) {
    if (previous) previous.claim = { hostPid: record.hostPid, ownerPid: record.claimFrom, at: record.at };
    return;
  }
  const entry: SessionEntry = {
    address: record.address,
    host: record.host,
    sessionId: record.sessionId,
    roles: record.roles ?? previous?.roles ?? [],
    local: true,
    alive: false,
    source: record.source,
    firstSeen: previous?.firstSeen ?? record.at,
    // A person naming a session is not the session being seen.
    lastSeen: record.source === "cli" && previous ? previous.lastSeen : record.at,
  };
  const hostPid = record.hostPid ?? previous?.hostPid;
  if (hostPid !== undefined) entry.hostPid = hostPid;
  // A start time belongs to the pid it was recorded with.
  const hostStart = record.hostPid !== undefined ? record.hostStart : previous?.hostStart;
  if (hostStart !== undefined) entry.hostStart = hostStart;
  const cwd = record.cwd ?? previous?.cwd;
  if (cwd !== undefined) entry.cwd = cwd;
  const title = record.title ?? previous?.title;
  if (title !== undefined) entry.title = title;
  const name = record.name ?? previous?.name;
  if (name !== undefined) entry.name = name;
  const reports: PushReports = { ...(previous && pushReports.get(previous)) };
  if (record.push !== undefined) reports[record.source === "cli" ? "wrapper" : "server"] = record.push;
  const push = decidedPush(reports);
  if (push !== undefined) entry.push = push;
  if (previous?.claim !== undefined) entry.claim = previous.claim;
  // A person naming a session (or a wrapper reporting its push) does not move it to the writer's machine.
  const machine = record.source === "cli" && previous ? previous.machine : record.machine;
  if (machine !== undefined) entry.machine = machine;
  pushReports.set(entry, reports);
  byAddress.set(record.address, entry);
}

export class Sessions {
  readonly store: LocalStore<SessionRecord>;
  /** Per address, the offsets of its records: a process that folded nothing yet reads one session's records, not the registry's history. */
  readonly index: ScopeIndex<SessionRecord>;
  readonly swaps: SwapFollower;

  constructor(
    open: StoreFactory,
    private readonly now: () => number,
    /** This machine's id (read on first use: most hooks never register or list). */
    private readonly machine: () => string,
    indexDir: string,
  ) {
    this.store = open("sessions", sessionSchema, (scope) => (record) => record.address === scope);
    this.index = new ScopeIndex(this.store.log, indexDir, (record) => ({ scopes: [record.address] }));
    this.swaps = new SwapFollower(this.store.log.path);
  }

  get log(): JsonlLog<SessionRecord> {
    return this.store.log;
  }

  /**
   * `eventual`: return once written, not fsynced (a hook's registration, which the session's server
   * repeats at start). When the session's own host is another process and still running, the record is
   * written as a claim (`claimFrom`), which never moves the session: liveness is judged now, when it is
   * known, since a reader later cannot tell when that host ended. Judged without a lock: a registration
   * racing the owner's own can at worst be recorded as a move, as before this rule.
   */
  async register(input: SessionInput, options: { eventual?: boolean } = {}): Promise<SessionRecord> {
    const claimFrom = this.ownerElsewhere(input);
    const record: SessionRecord = { v: 1, type: "session", at: new Date(this.now()).toISOString(), writerPid: process.pid, ...input, machine: this.machine(), ...(claimFrom !== undefined ? { claimFrom } : {}) };
    await this.store.append([{ record, scopes: [record.address] }], options.eventual ? { durability: "eventual" } : {});
    return record;
  }

  /** The running host process that holds this session, when it is not the registering one. */
  private ownerElsewhere(input: SessionInput): number | undefined {
    if (input.hostPid === undefined) return undefined;
    const owner = this.get(input.address);
    // `alive` guards against a reused pid with the host's start time.
    return owner?.hostPid !== undefined && owner.hostPid !== input.hostPid && owner.alive ? owner.hostPid : undefined;
  }

  /** Addresses folded alone through the index (`foldOne`), each up to `next` of `file`, the most recently asked last. */
  private readonly foldedOne = new Map<string, { byAddress: Map<string, SessionEntry>; file: string; next: number }>();

  /** The registry folded so far: latest entry per address, up to `offset` of the file named by `dev`/`ino`. */
  private folded = { byAddress: new Map<string, SessionEntry>(), offset: 0, dev: -1, ino: -1 };

  /** Every session ever registered, latest record per address, most recently seen first. */
  all(): SessionEntry[] {
    return [...this.fold().values()].map((entry) => this.view(entry)).sort(byLastSeen);
  }

  /**
   * The session `entry`'s running Claude Code process runs now, when it has left `entry` for it (/clear,
   * /resume). Asked at every send to a live Claude Code session: only a session registered after `entry`'s
   * last record can be it, so the registry is read back from its end to there, not folded whole.
   */
  leftFor(entry: SessionEntry): SessionEntry | undefined {
    const key = processKey(entry);
    if (key === undefined || !entry.local || !entry.alive) return undefined;
    const since = Date.parse(entry.lastSeen);
    const later = new Set<string>();
    this.log.scanBackward(undefined, ({ record }) => {
      if (Date.parse(record.at) < since) return false;
      if (record.hostPid === entry.hostPid && record.address !== entry.address) later.add(record.address);
      return true;
    });
    let now: SessionEntry | undefined;
    for (const address of later) {
      const other = this.get(address);
      if (other && processKey(other) === key && other.lastSeen > entry.lastSeen && (!now || other.lastSeen > now.lastSeen)) now = other;
    }
    return now;
  }

  /**
   * Sessions registered with `role` that may run, most recently seen first: here the live ones; of each
   * other machine, whose processes this one cannot see, only the one seen last there (its earlier holders
   * have ended or restarted as it, or one role would read as held twice for good).
   */
  private liveHolders(role: string): SessionEntry[] {
    const holders: SessionEntry[] = [];
    const elsewhere = new Map<string, SessionEntry>();
    const folded = this.fold();
    const newest = newestPerProcess(folded.values());
    for (const entry of folded.values())
      if (entry.roles.includes(role)) {
        const holder = this.view(entry);
        if (holder.alive) {
          if (!supersededBy(newest, entry)) holders.push(holder);
        } else if (!holder.local) {
          const machine = holder.machine ?? "";
          const seen = elsewhere.get(machine);
          if (!seen || byLastSeen(holder, seen) < 0) elsewhere.set(machine, holder);
        }
      }
    return [...holders, ...elsewhere.values()].sort(byLastSeen);
  }

  /** One session's entry: a send or a registration looks up one address, not the whole registry (which only grows). */
  get(address: string): SessionEntry | undefined {
    const indexed = this.folded.offset === 0 ? this.foldOne(address) : undefined;
    const entry = indexed ? indexed.entry : this.fold().get(address);
    return entry && this.view(entry);
  }

  /**
   * One address's entry from its own records (an entry depends on no other address's): the index's
   * offsets, then the lines after what it covers. For a process that has folded nothing yet, such as the
   * SessionStart hook, on a registry too long to fold whole in a hook; undefined when not worth it or the
   * index cannot serve (then the whole fold answers).
   */
  private foldOne(address: string): { entry: SessionEntry | undefined } | undefined {
    let identity = this.log.identity();
    if ((identity?.size ?? 0) < INDEXED_FROM_BYTES) return undefined;
    const file = `${identity!.dev}:${identity!.ino}`;
    this.swaps.check(file);
    identity = this.log.identity();
    if (!identity) return undefined;
    // Asked again (a server's identity check at each tool call): only the lines appended since.
    const kept = this.foldedOne.get(address);
    if (kept && kept.file === file && identity.size >= kept.next) {
      kept.next = this.log.scan(kept.next, ({ record }) => void (record.address === address && foldRecord(kept.byAddress, record)), {}, identity).next;
      return { entry: kept.byAddress.get(address) };
    }
    try {
      // Extended by whoever reads, as the mailbox's: a hook pays for the records since the last one.
      this.index.extendOnTheWay(FAR_BEHIND_BYTES);
      const indexed = this.index.lookup(address);
      if (!indexed) return undefined;
      const byAddress = new Map<string, SessionEntry>();
      this.log.readLinesAt(indexed.offsets, ({ record }) => foldRecord(byAddress, record));
      const next = this.log.scan(indexed.covered, ({ record }) => void (record.address === address && foldRecord(byAddress, record)), {}, identity).next;
      this.foldedOne.delete(address);
      this.foldedOne.set(address, { byAddress, file, next });
      // The oldest asked goes first: a process asks about a few addresses again and again.
      if (this.foldedOne.size > FOLDED_ONE_KEPT) this.foldedOne.delete(this.foldedOne.keys().next().value!);
      return { entry: byAddress.get(address) };
    } catch {
      // Derived data: the whole fold answers instead.
      return undefined;
    }
  }

  /** Corrupt lines of the registry and whether it ends torn; past INDEXED_FROM_BYTES without reading what the index covers again. */
  corruptLines(): CorruptReport {
    if ((this.log.identity()?.size ?? 0) >= INDEXED_FROM_BYTES) this.index.extendOnTheWay(FAR_BEHIND_BYTES);
    return this.index.corruptLines();
  }

  /** A copy of a folded entry for callers, with `local` and `alive` judged for this machine. */
  private view(folded: SessionEntry): SessionEntry {
    const entry = { ...folded, local: folded.machine === undefined || folded.machine === this.machine() };
    // Judged when first asked (it reads /proc): most calls look at one entry. A pid names a process only on its own machine.
    let alive: boolean | undefined;
    Object.defineProperty(entry, "alive", {
      enumerable: true,
      configurable: true,
      get: () => (alive ??= entry.local && entry.hostPid !== undefined && isSameProcess(entry.hostPid, entry.hostStart)),
      set: (value: boolean) => (alive = value),
    });
    return entry;
  }

  /**
   * Folds the records appended since the last call: every tool call's identity check and every web view
   * refresh asks, and each reads only the lines appended since (a torn last line is read once whole).
   */
  private fold(): Map<string, SessionEntry> {
    let identity = this.log.identity();
    let folded = this.folded;
    // Another file (a compaction swapped one in: lines it left in the old one are brought over first), or a shorter one: fold it from the start.
    if (!identity || identity.dev !== folded.dev || identity.ino !== folded.ino || identity.size < folded.offset) {
      this.swaps.check(identity && `${identity.dev}:${identity.ino}`);
      identity = this.log.identity();
      folded = this.folded = { byAddress: new Map(), offset: 0, dev: identity?.dev ?? -1, ino: identity?.ino ?? -1 };
    }
    const byAddress = folded.byAddress;
    if (!identity || identity.size === folded.offset) return byAddress;
    folded.offset = this.log.scan(folded.offset, ({ record }) => foldRecord(byAddress, record)).next;
    return byAddress;
  }

  /**
   * Sessions as people and agents are shown them. Without includeDead: the live sessions here, and every
   * session of other machines (their liveness is not known here). A Claude Code session its still running
   * process has left for another (leftFor) is not running: nothing reads its mail while the process runs the other.
   */
  list(options: { host?: SessionHost | undefined; includeDead?: boolean | undefined } = {}): SessionEntry[] {
    const all = this.all();
    const newest = newestPerProcess(all);
    for (const entry of all) {
      const now = entry.alive ? supersededBy(newest, entry) : undefined;
      if (now !== undefined) {
        entry.alive = false;
        entry.leftFor = now.address;
      }
    }
    return all.filter((entry) => (options.host === undefined || entry.host === options.host) && (options.includeDead || mayRun(entry)));
  }

  /** The most recent session registered for a host process on this machine (how a server finds the session its hooks saw). */
  byHostPid(host: SessionHost, hostPid: number): SessionEntry | undefined {
    const here = this.machine();
    return this.first((entry) => (entry.machine === undefined || entry.machine === here) && entry.host === host && entry.hostPid === hostPid, byLastSeen);
  }

  /** The session a host process most recently claimed from another running host, if any. */
  claimedBy(host: SessionHost, hostPid: number): SessionEntry | undefined {
    return this.first((entry) => entry.host === host && entry.claim?.hostPid === hostPid, (a, b) => latestFirst(a.claim!.at, b.claim!.at) || byLastSeen(a, b));
  }

  /** Of the entries `matches` accepts, the first in `order` (the first folded on a tie, as a stable sort keeps it): only it is copied. */
  private first(matches: (entry: SessionEntry) => boolean, order: (a: SessionEntry, b: SessionEntry) => number): SessionEntry | undefined {
    let best: SessionEntry | undefined;
    for (const entry of this.fold().values()) if (matches(entry) && (best === undefined || order(entry, best) < 0)) best = entry;
    return best && this.view(best);
  }

  /**
   * Resolves a `to` address exactly, never by guessing: a session address must be registered (it may be
   * offline: mail waits, and `alive` says so); `role:<name>` must name exactly one live session.
   */
  resolveRecipient(to: string, unseen?: () => DiscoveredSession | undefined): { address: string; via?: string; entry: SessionEntry; discovered?: DiscoveredSession } {
    if (!to.startsWith("role:")) {
      const entry = this.get(to);
      if (entry) return { address: to, entry };
      // A session its host wrote files for but peerpost has not seen: exact address only, never a guess.
      const found = unseen?.();
      if (found) return { address: to, discovered: found, entry: { address: to, host: found.host, sessionId: found.sessionId, roles: [], local: true, alive: false, source: "discovered", firstSeen: found.lastActivity, lastSeen: found.lastActivity } };
      const [kind, id = ""] = to.split(":");
      const similar = this.all().filter((session) => session.address.startsWith(`${kind}:`) && (session.sessionId.startsWith(id.slice(0, 6)) || id.startsWith(session.sessionId.slice(0, 6))));
      throw new PeerpostError("not_found", `No session ${to} is known to peerpost.`, {
        details: { to, similar: similar.slice(0, 5).map((session) => session.address) },
        hint: HINTS.unknownSession,
      });
    }
    const role = to.slice("role:".length);
    const holders = this.liveHolders(role);
    if (holders.length === 1) return { address: holders[0]!.address, via: to, entry: holders[0]! };
    if (holders.length === 0)
      throw new PeerpostError("not_found", `No live session holds the role ${role}.`, {
        details: { to },
        hint: HINTS.noRoleHolder,
      });
    throw new PeerpostError("ambiguous", `${holders.length} live sessions hold the role ${role}; refusing to guess.`, {
      details: { to, candidates: holders.map((entry) => ({ address: entry.address, cwd: entry.cwd === undefined ? null : escapeVisible(entry.cwd), lastSeen: entry.lastSeen })) },
      hint: HINTS.ambiguousRole,
    });
  }
}
