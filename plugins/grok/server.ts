// Entry of dist/grok/server.mjs: the peerpost MCP server as Grok Build launches it.
import { serveStdio } from "../../core/server/server.js";
import { discoverAll } from "../discovery.js";
import { adapterFor } from "../hosts.js";

await serveStdio(adapterFor("grok", process.env), process.env, { discover: discoverAll });
