// The sockets Claude's own SendMessage answers to: one per pushed request, `<state dir>/live/claude-inbox/
// <message id>.sock` (0600, in a 0700 dir), named as the frame's `from`. A state dir too deep for a socket
// path uses `/tmp/peerpost-<uid>/<hash of the state dir>/` instead, private the same way (the system's
// /tmp, not TMPDIR: a host's own TMPDIR can be as deep as the state dir). Whatever arrives on one is an
// answer to that request. They are served by the session's own peerpost server, which lives exactly as
// long as the session that could answer; a restarted server binds the open ones again.
import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { fnv1a64 } from "../../../core/common/hash.js";
import { ensurePrivateDir } from "../../../core/security/trust.js";

/** Unix socket paths are limited to 107 bytes on Linux (103 on macOS). */
export const MAX_SOCKET_PATH = 103;
const MAX_FRAME_BYTES = 256 * 1024;

export type FrameHandler = (messageId: string, frame: Record<string, unknown>) => void;

/** A reply socket's name: a message id (a ULID, 26 characters) and `.sock`. */
const SOCKET_NAME_BYTES = 26 + ".sock".length;

export function replyDir(stateDir: string): string {
  const inStateDir = join(stateDir, "live", "claude-inbox");
  // The limit is in bytes (Node silently truncates a longer path): a non-ASCII state dir counts double or more.
  if (Buffer.byteLength(join(inStateDir, "x".repeat(SOCKET_NAME_BYTES))) <= MAX_SOCKET_PATH) return inStateDir;
  return join("/tmp", `peerpost-${process.getuid?.() ?? "user"}`, fnv1a64(stateDir).slice(0, 16));
}

export class ReplySockets {
  private readonly servers = new Map<string, Server>();

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

  /** Listens for answers to `messageId` (once; a second call keeps the first socket). */
  async bind(messageId: string): Promise<string> {
    const path = this.path(messageId);
    if (this.servers.has(messageId)) return path;
    // Both levels private and this user's (a dir someone else made in a shared tmp is refused).
    ensurePrivateDir(dirname(this.dir));
    ensurePrivateDir(this.dir);
    try {
      unlinkSync(path);
    } catch {
      // not there
    }
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
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => resolve());
    });
    try {
      chmodSync(path, 0o600);
    } catch (error) {
      // Not bound where asked: close it rather than leave a listener on some other path.
      server.close();
      throw error;
    }
    server.unref();
    this.servers.set(messageId, server);
    return path;
  }

  close(messageId: string): void {
    const server = this.servers.get(messageId);
    if (!server) return;
    this.servers.delete(messageId);
    server.close();
    try {
      unlinkSync(this.path(messageId));
    } catch {
      // gone
    }
  }

  closeAll(): void {
    for (const messageId of this.bound()) this.close(messageId);
  }
}
