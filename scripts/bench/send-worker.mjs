// A bench worker: opens the store, sends once to warm up, then sends `count` durable messages from the
// start signal. argv: <peerpost.js> <stateDir> <from> <to> <count> <goFile>
import { awaitGo, finished } from "./start-signal.mjs";

const [peerpostModule, stateDir, from, to, countText] = process.argv.slice(2);
const { openPeerpost } = await import(peerpostModule);
const peerpost = openPeerpost({ env: { ...process.env, PEERPOST_HOME: stateDir } });
// Warm up: the first send loads the record validator.
await peerpost.mailbox.send({ from, fromVerified: true, to, body: "warm-up" });
await awaitGo();
for (let i = 0; i < Number(countText); i++) await peerpost.mailbox.send({ from, fromVerified: true, to, body: `${from} #${i}` });
finished();
