// A bench worker: opens the store, says "ready", waits for the go file, then sends `count` durable
// messages. Start-up stays out of the measured time. argv: <peerpost.js> <stateDir> <from> <to> <count> <goFile>
import { existsSync } from "node:fs";

const [peerpostModule, stateDir, from, to, countText, goFile] = process.argv.slice(2);
const { openPeerpost } = await import(peerpostModule);
const peerpost = openPeerpost({ env: { ...process.env, PEERPOST_HOME: stateDir } });
// Warm up: the first send loads the record validator.
await peerpost.mailbox.send({ from, fromVerified: true, to, body: "warm-up" });
process.stdout.write("ready\n");
while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 1));
for (let i = 0; i < Number(countText); i++) await peerpost.mailbox.send({ from, fromVerified: true, to, body: `${from} #${i}` });
