// What `peerpost ui` opens the browser at: the page's URL with a one-time code in place of the token
// (`/?open=CODE`). An opener's and a browser's arguments can be read by every user of the machine (ps),
// for as long as the browser runs when the opener started it; the code is good for one load, within
// OPENING_TTL_MS (guard.ts), and that load answers with this page, which goes on to the URL with the token:
// a load the page's own origin starts, so the token never passes through the arguments, and a reload of
// the page is a same-origin one. An http URL, not a private file: a confined browser (a snap, a flatpak) or
// a forwarder to another machine's browser ($BROWSER in a remote editor) cannot open a file in the state dir.

/** A page that sends the browser on to `url` at once (meta refresh; no script, which the CSP would refuse), escaped for an attribute and for text. */
export function redirectHtml(url: string): string {
  const escaped = url.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return `<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${escaped}">\n<title>peerpost</title>\n<p>Opening peerpost… <a href="${escaped}" rel="noreferrer">open it</a></p>\n`;
}
