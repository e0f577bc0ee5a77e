// A bench worker with no peerpost in it: sends `count` lines to the socket writer one at a time, each
// acknowledged once it is on disk. argv: <socketPath> <count> <goFile>
import { connect } from "node:net";
import { LINE, awaitGo, finished } from "./start-signal.mjs";

const [socketPath, countText] = process.argv.slice(2);
const socket = connect(socketPath);
await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
let acknowledged;
socket.on("data", () => acknowledged?.());
await awaitGo();
for (let i = 0; i < Number(countText); i++) {
  const durable = new Promise((resolve) => (acknowledged = resolve));
  socket.write(LINE);
  await durable;
}
socket.end();
finished();
