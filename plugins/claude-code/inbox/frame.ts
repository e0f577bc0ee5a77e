// The wire format of Claude Code's messaging socket (peer protocol 1, as its own sender writes it in
// 2.1.332): an optional auth line, then one JSON object per line. The recipient renders the envelope
// again and ignores its metadata unless the bytes match, so the attribute order is fixed: from, then
// from-name (peerpost asserts no from-mode: it is not a Claude session and has no permission mode).
import { connect } from "node:net";
import { nodeCrypto } from "../../../core/common/crypto.js";

export const FROM_NAME = "peerpost";
const OPEN = "<cross-session-message";
const CLOSE = "</cross-session-message>";
const WRITE_TIMEOUT_MS = 5000;

export interface InboxFrame {
  msgV: 1;
  msg_id: string;
  type: "user";
  message: { role: "user"; content: string };
  priority: "next";
  from: string;
}

/** A user frame carrying `text`, whose answers (Claude's SendMessage) go to the socket `replyPath`. */
export function inboxFrame(text: string, replyPath: string): InboxFrame {
  const from = `uds:${replyPath}`;
  return { msgV: 1, msg_id: nodeCrypto().randomUUID(), type: "user", message: { role: "user", content: `${OPEN} from="${from}" from-name="${FROM_NAME}">\n${text}\n${CLOSE}` }, priority: "next", from };
}

/** The text inside a `<cross-session-message …>` envelope (what SendMessage wrote), or the content as it is. */
export function unwrapEnvelope(content: string): string {
  const trimmed = content.trim();
  if (!trimmed.startsWith(OPEN) || !trimmed.endsWith(CLOSE)) return content;
  const start = trimmed.indexOf(">\n");
  return start < 0 ? content : trimmed.slice(start + 2, trimmed.length - CLOSE.length).replace(/\n$/, "");
}

/** Writes the auth line (with a token) and the frame, then closes: the inbox drops a connection without a complete line. */
export function writeFrame(socketPath: string, frame: InboxFrame, token: string | undefined): Promise<void> {
  const bytes = (token !== undefined ? `${JSON.stringify({ type: "auth", token })}\n` : "") + `${JSON.stringify(frame)}\n`;
  return new Promise((resolve, reject) => {
    const socket = connect({ path: socketPath });
    socket.setTimeout(WRITE_TIMEOUT_MS, () => socket.destroy(new Error(`timed out writing to ${socketPath}`)));
    socket.on("error", reject);
    socket.on("connect", () => socket.end(bytes, () => resolve()));
  });
}
