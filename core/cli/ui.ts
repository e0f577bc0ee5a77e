// `peerpost ui [--port N] [--no-open] [--as ADDR]`: the live web view of sessions and their traffic,
// on 127.0.0.1 only. Prints its URL (with this run's token) on stdout and serves until interrupted.
import { html, css, icon, script } from "peerpost-ui-assets";
import { openPeerpost } from "../peerpost.js";
import { UiServer } from "../ui/server.js";
import { uiAuthor } from "../ui/author.js";
import { openBrowser } from "../ui/opener.js";
import { UsageError } from "./output.js";
import type { Flags } from "./commands.js";

function parsePort(value: string | boolean | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (typeof value !== "string" || !/^\d{1,5}$/.test(value) || port > 65535) throw new UsageError("--port must be a number from 0 to 65535 (0 picks a free port)");
  return port;
}

export async function ui(flags: Flags): Promise<void> {
  const port = parsePort(flags.port);
  const author = uiAuthor(typeof flags.as === "string" ? flags.as : undefined);
  const peerpost = openPeerpost({});
  const server = new UiServer({ peerpost, assets: { html, css, icon, script }, port, author });
  // Registered before the URL is printed: whoever reads it may stop the server at once.
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  const url = await server.listen();
  process.stdout.write(`${url}\n`);
  process.stderr.write(`peerpost ui: ${peerpost.stateDir.path}, ${author === null ? "read-only (start with --as ADDR to write)" : `writing as ${author}`}; Ctrl-C stops it\n`);
  if (!flags["no-open"]) void openBrowser(url).then((problem) => problem && process.stderr.write(`peerpost ui: could not open a browser (${problem}); open the URL above\n`));
  await stopped;
  await server.close();
}
