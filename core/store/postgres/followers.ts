// Which processes on this machine keep the PostgreSQL mirrors current (servers that LISTEN): one file
// per process under followers/, naming the store it follows, present only while its LISTEN connection is
// up and its syncs succeed. A prompt hook that
// sees a live follower reads the mirror as it is and never connects: the database stays off its path.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isSameProcess, processStartTime } from "../../sessions/process-tree.js";
import { ensurePrivateDir, readStateFile, writeStateFile } from "../../security/trust.js";

function followersDir(stateDir: string): string {
  return join(stateDir, "followers");
}

/**
 * Marks (or unmarks) this process as keeping the mirrors of `store` (its masked URL) current, as copies of
 * the database `copies` (its identity, as mirror-<log>.store.json records it). Best effort: a hook then just connects.
 */
export function markFollowing(stateDir: string, store: string, following: boolean, copies?: string): void {
  const path = join(followersDir(stateDir), (ownMark ??= markName()));
  try {
    if (!following || copies === undefined) return rmSync(path, { force: true });
    ensurePrivateDir(followersDir(stateDir));
    writeStateFile(path, `${store}\n${copies}\n`);
  } catch {
    // Without the mark, hooks connect themselves.
  }
}

let ownMark: string | undefined;

/**
 * This process's mark: its pid and, where the system tells it, its start time. A mark a killed server
 * left (SIGKILL, a reboot) must not count for a later process that got its pid.
 */
function markName(): string {
  const start = processStartTime(process.pid);
  return start === undefined ? String(process.pid) : `${process.pid}-${start}`;
}

const MARK = /^(\d+)(?:-(\d+))?$/;

/**
 * Whether a live process on this machine follows `store` now (a dead one's mark is ignored, and so is a
 * follower of another store), keeping mirrors that copy the database `copies` says (given the identity a
 * mark records): a mirror another process started over from another database since is not the one it
 * vouches for, until its next sync finds that out and unmarks it.
 */
export function isFollowed(stateDir: string, store: string, copies: (identity: string) => boolean = () => true): boolean {
  let names: string[];
  try {
    names = readdirSync(followersDir(stateDir));
  } catch {
    return false;
  }
  return names.some((name) => {
    const mark = MARK.exec(name);
    if (mark === null || !isSameProcess(Number(mark[1]), mark[2] === undefined ? undefined : Number(mark[2]))) return false;
    const followed = followedStore(join(followersDir(stateDir), name));
    return followed !== undefined && followed.store === store && copies(followed.copies);
  });
}

/** The store a mark names and the database its mirrors copy; undefined for one that cannot be read, names no database, or is no plain file of this user's (never waited on: trust.ts). */
function followedStore(path: string): { store: string; copies: string } | undefined {
  try {
    const [store, copies] = readStateFile(path).trimEnd().split("\n");
    return store === undefined || copies === undefined || copies === "" ? undefined : { store, copies };
  } catch {
    return undefined;
  }
}
