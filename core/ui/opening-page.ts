// What `peerpost ui` opens the browser at: a private file in the state dir (0600, in a 0700 dir) that
// sends the browser on to the page's URL. The URL holds the token, and an opener's or a browser's
// arguments can be read by every user of the machine (ps); the file's path alone gives nothing away. A
// page loaded from a file comes cross-site, so the URL carries a one-time code the guard lets through once
// (guard.ts); the file is removed once it was used, or when the ui stops. That load answers with a page
// that goes on to the URL without the code: a load the page's own origin starts, which a reload repeats
// as such (Chromium reloads a page with the site its load came from, and refuses nothing then).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensurePrivateDir, writeStateFile } from "../security/trust.js";

/** A page that sends the browser on to `url` at once (meta refresh; no script, which the CSP would refuse), escaped for an attribute and for text. */
export function redirectHtml(url: string): string {
  const escaped = url.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  return `<!doctype html>\n<meta charset="utf-8">\n<meta name="referrer" content="no-referrer">\n<meta http-equiv="refresh" content="0;url=${escaped}">\n<title>peerpost</title>\n<p>Opening peerpost… <a href="${escaped}" rel="noreferrer">open it</a></p>\n`;
}

export interface OpeningPage {
  /** The file's own URL, for the opener's arguments. */
  fileUrl: string;
  path: string;
  remove(): void;
}

/** Writes the opening file for `url` under `stateDir`'s cache/; one per ui process. */
export function writeOpeningPage(stateDir: string, url: string): OpeningPage {
  const dir = join(stateDir, "cache");
  ensurePrivateDir(dir);
  const path = join(dir, `ui-open-${process.pid}.html`);
  writeStateFile(path, redirectHtml(url));
  return { fileUrl: pathToFileURL(path).href, path, remove: () => rmSync(path, { force: true }) };
}
