// A person who starts the server by hand and types at it gets told what it is, instead of silence: a
// line on a terminal that is not JSON-RPC is answered with a one-line hint on stderr (stdout is the
// protocol's). Lines that look like JSON are left to the transport.

export const TERMINAL_HINT =
  "peerpost: this is the MCP server; it reads JSON-RPC from an MCP client, not commands. Try `peerpost help` in another shell, or `npm run demo`. Ctrl-C stops it.\n";

export function hintOnTerminalInput(input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): void {
  if (!input.isTTY) return;
  let pending = "";
  input.on("data", (chunk: Buffer | string) => {
    pending += chunk.toString();
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "" && !line.trimStart().startsWith("{")) output.write(TERMINAL_HINT);
  });
}
