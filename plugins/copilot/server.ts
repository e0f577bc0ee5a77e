// Entry of dist/copilot/server.mjs: the peerpost MCP server as Copilot CLI launches it.
import { serveStdio } from "../../core/server/server.js";
import { adapterFor } from "../hosts.js";

await serveStdio(adapterFor("copilot", process.env));
