// Entry of dist/claude-code/server.mjs: the peerpost MCP server as Claude Code launches it.
import { serveStdio } from "../../core/server/server.js";
import { discoverAll } from "../discovery.js";
import { adapterFor } from "../hosts.js";

await serveStdio(adapterFor("claude-code", process.env), process.env, { discover: discoverAll });
