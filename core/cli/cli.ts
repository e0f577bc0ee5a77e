// The `peerpost` command line: the MCP server (`serve`) and commands for people.
import { parseArgs } from "node:util";
import { VERSION } from "../version.js";
import { serveStdio } from "../server/server.js";
import { ADAPTERS } from "../../plugins/hosts.js";
import { discoverAll } from "../../plugins/discovery.js";
import type { HostName } from "../config.js";
import { agents, inbox, reply, send, status, tail, type Flags } from "./commands.js";
import { doctor } from "./doctor.js";
import { wakeCommand } from "./wake.js";
import { hooksCommand } from "./hooks.js";
import { launchCommand } from "./launch.js";
import { wakeRunCommand } from "../wake/main.js";
import { wakeDeps } from "../../plugins/wakers.js";
import { role, roles } from "./role.js";
import { name, resolve } from "./names.js";
import { ui } from "./ui.js";
import { compact } from "./compact.js";
import { EXIT, printError, UsageError } from "./output.js";

const USAGE = `peerpost ${VERSION} — messages between AI coding agents on this machine

usage:
  peerpost serve [--host claude-code|codex|copilot|grok|generic]   MCP server on stdio
  peerpost send [--from ADDR] --to ADDR [--anticipation reply|action|fyi] TEXT   (--from: default user:<login name>)
  peerpost inbox ADDR [--all]                 show messages to ADDR (does not mark them read)
  peerpost reply ID --as ADDR (--reply TEXT | --decline REASON | --done)
  peerpost status [ID]                        one message, or a summary per session
  peerpost agents [--all]                     sessions peerpost knows (--all: also ended ones and unseen ones from the hosts' files)
  peerpost tail [--from-start]                follow the mailbox live
  peerpost doctor                             check the state dir and each host's install
  peerpost role set NAME ADDR [--procedure FILE]   give a role to a session (its open requests follow)
  peerpost role clear NAME                    nobody holds the role; its mail waits
  peerpost roles                              roles, holders, procedures, open requests
  peerpost name ADDR NAME                     give a session a name people use
  peerpost resolve QUERY                      sessions matching a name, dir, host or id, ranked with reasons
  peerpost ui [--port N] [--no-open] [--as ADDR]   live web view on 127.0.0.1 (URL with a token on stdout)
  peerpost wake [on|off all|HOST|ADDR]        resume dormant sessions to answer requests (off by default)
  peerpost launch --host H --cwd DIR --from ADDR TEXT   start a helper session (peerpost launch on|off)
  peerpost hooks install|uninstall grok       user-level hooks for Grok (it ignores a plugin's hooks)
  peerpost compact                            archive finished messages older than the retention
  peerpost migrate --to postgres://…          copy this state dir's history into PostgreSQL (once)

Every command takes --json. Addresses: claude:<id>, codex:<id>, copilot:<id>, grok:<id>, role:<name>,
user:<name> (a person; PEERPOST_USER, else the login name).
State dir: ~/.peerpost, or PEERPOST_HOME. Exit codes: 0 ok, 1 error, 2 usage.
`;

const OPTIONS = {
  json: { type: "boolean" },
  all: { type: "boolean" },
  host: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  anticipation: { type: "string" },
  as: { type: "string" },
  reply: { type: "string" },
  decline: { type: "string" },
  done: { type: "boolean" },
  "from-start": { type: "boolean" },
  cwd: { type: "string" },
  procedure: { type: "string" },
  port: { type: "string" },
  "no-open": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
} as const;

async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return printError(new UsageError(error instanceof Error ? error.message : String(error)), false);
  }
  const { values, positionals } = parsed;
  const flags = values as Flags;
  const json = Boolean(values.json);
  const [command, ...rest] = positionals;
  if (values.version) {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  if (!command || command === "help" || values.help) {
    process.stdout.write(USAGE);
    return command || values.help ? EXIT.ok : EXIT.usage;
  }
  try {
    switch (command) {
      case "serve": {
        const host = (values.host ?? process.env.PEERPOST_HOST ?? "generic") as HostName;
        if (!(host in ADAPTERS)) throw new UsageError(`--host must be one of ${Object.keys(ADAPTERS).join(", ")}`);
        // A host named here is taken as said; only the plugin bundles detect their host from the environment.
        await serveStdio(ADAPTERS[host], process.env, { discover: discoverAll, wake: wakeDeps() });
        return -1;
      }
      case "send":
        await send(flags, rest.join(" ") || undefined, json, wakeDeps());
        return EXIT.ok;
      case "inbox":
        await inbox(rest[0], flags, json);
        return EXIT.ok;
      case "reply":
        await reply(rest[0], flags, json);
        return EXIT.ok;
      case "status":
        await status(rest[0], json);
        return EXIT.ok;
      case "agents":
        await agents(flags, json);
        return EXIT.ok;
      case "tail": {
        const controller = new AbortController();
        process.on("SIGINT", () => controller.abort());
        await tail(flags, json, controller.signal);
        return EXIT.ok;
      }
      case "wake":
        wakeCommand(rest, json);
        return EXIT.ok;
      case "launch":
        await launchCommand(rest, flags, json, wakeDeps());
        return EXIT.ok;
      case "hooks":
        hooksCommand(rest, json);
        return EXIT.ok;
      case "wake-run":
        return await wakeRunCommand(rest[0], wakeDeps());
      case "doctor":
        return doctor(json);
      case "role":
        await role(rest, flags, json);
        return EXIT.ok;
      case "roles":
        roles(json);
        return EXIT.ok;
      case "name":
        await name(rest, json);
        return EXIT.ok;
      case "resolve":
        resolve(rest, json);
        return EXIT.ok;
      case "ui":
        await ui({ port: values.port, open: !values["no-open"], as: values.as });
        return EXIT.ok;
      case "compact":
        await compact(json);
        return EXIT.ok;
      case "migrate": {
        const { migrate } = await import("./migrate.js");
        await migrate(flags, json);
        return EXIT.ok;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    return printError(error, json);
  }
}

const code = await run(process.argv.slice(2));
// `serve` keeps running until its client goes away.
if (code >= 0) process.exitCode = code;
