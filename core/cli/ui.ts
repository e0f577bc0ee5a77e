// `peerpost ui [--port N] [--no-open] [--as ADDR]`: the live web view of sessions and their traffic,
// on 127.0.0.1 only. Prints its URL (with this run's token) on stdout and serves until interrupted.
import { html, css, icon, script } from "peerpost-ui-assets";
import { openPeerpost } from "../peerpost.js";
import { catchUpDetached, indexWhenFarBehind } from "../upkeep/index-run.js";
import { UiServer } from "../ui/server.js";
import { uiAuthor } from "../ui/author.js";
import { openBrowser } from "../ui/opener.js";
import { UsageError } from "./output.js";
import { hostSteps } from "./next-steps.js";
import { syncMirrors } from "./store.js";
import { wakeDeps } from "../../plugins/wakers.js";

export interface UiOptions {
  port?: string | undefined;
  /** False for --no-open. */
  open: boolean;
  as?: string | undefined;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port > 65535) throw new UsageError("--port must be a number from 0 to 65535 (0 picks a free port)", "ui");
  return port;
}

export async function ui(options: UiOptions): Promise<void> {
  const port = parsePort(options.port);
  const peerpost = openPeerpost({});
  // A shared (PostgreSQL) store: bring this machine's mirrors up to date, then follow the database, so
  // what other machines write reaches the page as it happens. A database that is away leaves the page on
  // what this machine copied last, as the other people's commands do; the follow catches up once it is back.
  const away = await syncMirrors(peerpost);
  const unfollow = peerpost.backend.follow();
  // Its bundle runs `index-run`: a compaction the size setting calls for runs there, not in the view's process.
  peerpost.mailbox.compactElsewhere(() => catchUpDetached(peerpost, process.argv[1] ?? ""));
  // Indexes far behind (a receipts log from before its index) are built there too, not by each refresh.
  indexWhenFarBehind(peerpost, process.argv[1] ?? "");
  const { author, problem } = uiAuthor(options.as, peerpost.config);
  const server = new UiServer({ peerpost, assets: { html, css, icon, script }, port, author, wake: wakeDeps(), ...hostSteps() });
  // Registered before the URL is printed: whoever reads it may stop the server at once.
  const stopped = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  const url = await server.listen();
  process.stdout.write(`${url}\n`);
  process.stderr.write(`peerpost ui: ${peerpost.stateDir.path}, ${author === null ? `read-only (${problem}; start with --as ADDR to write)` : `writing as ${author}`}; Ctrl-C stops it\n`);
  if (away !== undefined) process.stderr.write(`peerpost ui: warning store_unreachable: ${away}\n`);
  // A one-time code, not the token: an opener's arguments are visible to every user of the machine.
  if (options.open) void openBrowser(server.openingUrl()).then((problem) => problem && process.stderr.write(`peerpost ui: could not open a browser (${problem}); open the URL above\n`));
  await stopped;
  await server.close();
  unfollow();
  await peerpost.backend.close();
}
