// A bench worker: opens the store and sends `warmUps` messages before the start signal, then `count`
// durable ones from it. argv: <peerpost.js> <stateDir> <from> <to> <warmUps> <count> <goFile>
import { awaitGo, finished } from "./start-signal.mjs";

const [peerpostModule, stateDir, from, to, warmUpsText, countText] = process.argv.slice(2);
const { openPeerpost } = await import(peerpostModule);
const peerpost = openPeerpost({ env: { ...process.env, PEERPOST_HOME: stateDir } });
// At least one: the first send loads the record validator.
for (let i = 0; i < Math.max(1, Number(warmUpsText)); i++) await peerpost.mailbox.send({ from, fromVerified: true, to, body: "warm-up" });
await awaitGo();
for (let i = 0; i < Number(countText); i++) await peerpost.mailbox.send({ from, fromVerified: true, to, body: `${from} #${i}` });
finished();
