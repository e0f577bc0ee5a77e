// What every plugin's server.mjs does: serve MCP on stdio for its host, or, started as
// `server.mjs wake-run <id>` by a send from this server, run that detached wake (or, as
// `server.mjs index-run`, the catch-up a server or a hook starts: mirrors, then the index).
import type { HostName } from "../../core/common/config.js";
import { serveStdio } from "../../core/server/server.js";
import { wakeRunCommand } from "../../core/wake/main.js";
import { indexRunCommand } from "../../core/upkeep/index-run.js";
import { adapterFor } from "../hosts.js";
import { discoverAll } from "../discovery.js";
import { wakeDeps } from "../wakers.js";

export async function runServerEntry(built: HostName): Promise<void> {
  if (process.argv[2] === "wake-run") process.exitCode = await wakeRunCommand(process.argv[3], wakeDeps());
  else if (process.argv[2] === "index-run") process.exitCode = await indexRunCommand();
  else await serveStdio(adapterFor(built, process.env), process.env, { discover: discoverAll, wake: wakeDeps() });
}
