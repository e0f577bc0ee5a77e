// The descriptors a log keeps open between calls, one per access mode: opening and checking the file
// (trust.ts) on every append and read cost a send more than its write. A kept descriptor is used only
// while the path still names its file, and one that a deciding append holds across its awaits is closed
// only when that append lets it go, so its number never names another file under it.
import { closeSync, fstatSync, lstatSync, writeSync, type Stats } from "node:fs";
import { isPrivateFile, openStateFile } from "../security/trust.js";

export interface KeptDescriptor {
  fd: number;
  dev: number;
  ino: number;
}

/** Descriptors a log kept open are closed when the log object is collected. */
const openDescriptors = new FinalizationRegistry<Map<number, KeptDescriptor>>((kept) => {
  for (const { fd } of kept.values()) closeQuietly(fd);
});

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
}

/** Writes all of `data` at the descriptor's position (looped only if the kernel writes less, which regular files do not). */
export function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}

export class KeptFiles {
  private readonly kept = new Map<number, KeptDescriptor>();
  /** Kept descriptors a deciding append uses across its awaits, with how many use each. */
  private readonly held = new Map<number, number>();
  /** Held descriptors let go of meanwhile (the path replaced, the log closed): closed when the last user is done. */
  private readonly retired = new Set<number>();

  /** `owner`: the log whose collection closes these descriptors. */
  constructor(
    private readonly path: string,
    owner: object,
  ) {
    openDescriptors.register(owner, this.kept, owner);
  }

  /** The descriptor kept for `flags`, unchecked (the caller checks it its own way). */
  get(flags: number): KeptDescriptor | undefined {
    return this.kept.get(flags);
  }

  /**
   * The kept descriptor for `flags` while the path names the file it was opened on (not followed: a link
   * put in its place is opened, and refused, anew); otherwise the file opened and checked now. `seen` is a
   * look at the path taken just before, in the same step, which spares looking again.
   */
  open(flags: number, seen?: Stats): KeptDescriptor {
    const kept = this.kept.get(flags);
    if (kept) {
      let current: Stats | undefined = seen;
      try {
        current ??= lstatSync(this.path);
      } catch {
        current = undefined;
      }
      // The same file, still as the checks left it (a mode someone loosened since is checked, and tightened, anew).
      if (current && current.ino === kept.ino && current.dev === kept.dev && isPrivateFile(current)) return kept;
      this.forget(flags);
    }
    const fd = openStateFile(this.path, flags);
    try {
      const stat = fstatSync(fd);
      const opened = { fd, dev: stat.dev, ino: stat.ino };
      this.kept.set(flags, opened);
      return opened;
    } catch (error) {
      closeQuietly(fd);
      throw error;
    }
  }

  forget(flags: number): void {
    const kept = this.kept.get(flags);
    if (kept) this.closeKept(kept.fd);
    this.kept.delete(flags);
  }

  /** Closes every kept descriptor (the next call opens them again). */
  close(): void {
    for (const { fd } of this.kept.values()) this.closeKept(fd);
    this.kept.clear();
  }

  hold(fd: number): void {
    this.held.set(fd, (this.held.get(fd) ?? 0) + 1);
  }

  letGo(fd: number): void {
    const users = (this.held.get(fd) ?? 1) - 1;
    if (users > 0) return void this.held.set(fd, users);
    this.held.delete(fd);
    if (this.retired.delete(fd)) closeQuietly(fd);
  }

  /** Closes a descriptor no longer kept, unless a deciding append still uses it. */
  private closeKept(fd: number): void {
    if (this.held.has(fd)) this.retired.add(fd);
    else closeQuietly(fd);
  }
}
