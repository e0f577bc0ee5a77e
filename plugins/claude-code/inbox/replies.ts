// The sockets Claude's own SendMessage answers to: one per pushed request, `<state dir>/live/claude-inbox/
// <message id>.sock` (0600, in a 0700 dir), named as the frame's `from`. A state dir too deep for a socket
// path uses `/tmp/peerpost-<uid>/<hash of the state dir>/` instead, private the same way (the system's
// /tmp, not TMPDIR: a host's own TMPDIR can be as deep as the state dir). Whatever arrives on one is an
// answer to that request. They are served by the session's own peerpost server, which lives exactly as
// long as the session that could answer; a restarted server binds the open ones again.
import { chmodSync, lstatSync, renameSync, unlinkSync } from "node:fs";
import { connect, createServer, type Server } from "node:net";
import { nodeCrypto } from "../../../core/common/crypto.js";
import { dirname, join } from "node:path";
import { fnv1a64 } from "../../../core/common/hash.js";
import { ensurePrivateDir } from "../../../core/security/trust.js";

/** Unix socket paths are limited to 107 bytes on Linux (103 on macOS). */
export const MAX_SOCKET_PATH = 103;
const MAX_FRAME_BYTES = 256 * 1024;
const PROBE_TIMEOUT_MS = 1000;

export type FrameHandler = (messageId: string, frame: Record<string, unknown>) => void;

/** A reply socket's name: a message id (a ULID, 26 characters) and `.sock`. */
const SOCKET_NAME_BYTES = 26 + ".sock".length;

export function replyDir(stateDir: string): string {
  const inStateDir = join(stateDir, "live", "claude-inbox");
  // The limit is in bytes (Node silently truncates a longer path): a non-ASCII state dir counts double or more.
  if (Buffer.byteLength(join(inStateDir, "x".repeat(SOCKET_NAME_BYTES))) <= MAX_SOCKET_PATH) return inStateDir;
  return join("/tmp", `peerpost-${process.getuid?.() ?? "user"}`, fnv1a64(stateDir).slice(0, 16));
}

/** Whether something listens at `path` now (another server of the same session keeps that socket). */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect({ path });
    probe.setTimeout(PROBE_TIMEOUT_MS, () => {
      probe.destroy();
      resolve(false);
    });
    probe.on("connect", () => {
      probe.end();
      resolve(true);
    });
    probe.on("error", () => resolve(false));
  });
}

export class ReplySockets {
  /** The listeners this process runs, with the inode of the socket file each put at its request's path. */
  private readonly servers = new Map<string, { server: Server; ino: number }>();
  private readonly binding = new Map<string, Promise<string>>();
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly onFrame: FrameHandler,
  ) {}

  path(messageId: string): string {
    return join(this.dir, `${messageId}.sock`);
  }

  bound(): string[] {
    return [...this.servers.keys()];
  }

  /** Whether the file at the request's path is still the socket this process put there. */
  private owns(messageId: string): boolean {
    const entry = this.servers.get(messageId);
    const stat = entry && lstatSync(this.path(messageId), { throwIfNoEntry: false });
    return stat !== undefined && stat.isSocket() && stat.ino === entry!.ino;
  }

  /**
   * Makes sure answers to `messageId` are taken: by this process's socket, or by another server of the
   * same session already listening at its path (never taken over: a second server of one session, or a
   * restarted one, must not leave the path to a listener that goes away with it). Called again, it binds
   * anew once the path is gone.
   */
  bind(messageId: string): Promise<string> {
    const pending = this.binding.get(messageId);
    if (pending) return pending;
    const started = this.bindOnce(messageId).finally(() => this.binding.delete(messageId));
    this.binding.set(messageId, started);
    return started;
  }

  private async bindOnce(messageId: string): Promise<string> {
    const path = this.path(messageId);
    const entry = this.servers.get(messageId);
    if (entry) {
      if (this.owns(messageId)) return path;
      // The path was taken or removed: this listener no longer serves it (closing it unlinks only its own name).
      this.servers.delete(messageId);
      entry.server.close();
    }
    // Both levels private and this user's (a dir someone else made in a shared tmp is refused).
    ensurePrivateDir(dirname(this.dir));
    ensurePrivateDir(this.dir);
    if (await listening(path)) return path;
    const server = createServer((connection) => {
      let buffer = "";
      const flush = (all: boolean) => {
        let end: number;
        while ((end = buffer.indexOf("\n")) >= 0 || (all && buffer.trim() !== "")) {
          const line = end >= 0 ? buffer.slice(0, end) : buffer;
          buffer = end >= 0 ? buffer.slice(end + 1) : "";
          try {
            const frame = JSON.parse(line) as unknown;
            if (typeof frame === "object" && frame !== null) this.onFrame(messageId, frame as Record<string, unknown>);
          } catch {
            // not a frame: ignored
          }
          if (end < 0) break;
        }
      };
      connection.setEncoding("utf8");
      connection.on("data", (chunk: string) => {
        buffer += chunk;
        if (buffer.length > MAX_FRAME_BYTES) connection.destroy();
        else flush(false);
      });
      connection.on("end", () => {
        flush(true);
        connection.end();
      });
      connection.on("error", () => undefined);
    });
    // Bound under a name of its own, then renamed into place: a listener's close unlinks the name it was
    // bound at (libuv does), which must never be a path another listener owns by then.
    const temporary = join(this.dir, `t${nodeCrypto().randomBytes(6).toString("hex")}.sock`);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(temporary, () => resolve());
    });
    let ino: number;
    try {
      chmodSync(temporary, 0o600);
      ino = lstatSync(temporary).ino;
      renameSync(temporary, path);
    } catch (error) {
      // Not bound where asked: close it rather than leave a listener on some other path.
      server.close();
      throw error;
    }
    server.unref();
    this.servers.set(messageId, { server, ino });
    // Closed while this bind was under way (the server is stopping): nothing may stay behind.
    if (this.closed) this.close(messageId);
    return path;
  }

  close(messageId: string): void {
    const entry = this.servers.get(messageId);
    if (!entry) return;
    // Only this process's own socket file: the path may be another server's by now.
    const own = this.owns(messageId);
    this.servers.delete(messageId);
    entry.server.close();
    try {
      if (own) unlinkSync(this.path(messageId));
    } catch {
      // gone
    }
  }

  closeAll(): void {
    this.closed = true;
    for (const messageId of this.bound()) this.close(messageId);
  }
}
