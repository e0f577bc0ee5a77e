// peerpost ui: the live web view on 127.0.0.1 (logic in ../ui.ts, loaded only when this command runs).
import { defineCommand } from "../command.js";

export const uiCommand = defineCommand({
  name: "ui",
  summary: "open a live web view of sessions and their traffic (127.0.0.1 only)",
  usage: "[--port N] [--no-open] [--as ADDR]",
  details: "Prints the URL (with this run's token) on stdout and serves until Ctrl-C. It writes as user:<name> unless --as says otherwise.",
  flags: {
    port: { type: "string", value: "N", help: "The port to listen on.", default: "0 (a free port)" },
    "no-open": { type: "boolean", help: "Do not open a browser." },
    as: { type: "string", value: "ADDR", help: "The address the page writes as.", default: "user:<PEERPOST_USER, else your login name>", complete: "address" },
  },
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost ui", "peerpost ui --no-open --port 8731"],
  json: false,
  async run({ flags }) {
    const { ui } = await import("../ui.js");
    await ui({ port: flags.port, open: !flags["no-open"], as: flags.as });
    return 0;
  },
});
