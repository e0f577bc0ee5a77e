// Entry of dist/codex/server.mjs: the peerpost MCP server as Codex launches it.
import { serveStdio } from "../../core/server/server.js";
import { discoverAll } from "../discovery.js";
import { adapterFor } from "../hosts.js";

await serveStdio(adapterFor("codex", process.env), process.env, { discover: discoverAll });
