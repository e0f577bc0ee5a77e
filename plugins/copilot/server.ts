// Entry of dist/copilot/server.mjs: the peerpost MCP server as Copilot CLI launches it.
import { serveStdio } from "../../core/server/server.js";
import { discoverAll } from "../discovery.js";
import { adapterFor } from "../hosts.js";

await serveStdio(adapterFor("copilot", process.env), process.env, { discover: discoverAll });
