// A bench worker for the SQLite baseline: commits `count` single-row transactions to one database in WAL
// mode with synchronous=FULL. argv: <database> <count> <goFile>
import { createRequire } from "node:module";
import { LINE, awaitGo, finished } from "./start-signal.mjs";

const [path, countText] = process.argv.slice(2);
const Database = createRequire(import.meta.url)("better-sqlite3");
const db = new Database(path, { timeout: 60000 });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
const insert = db.prepare("INSERT INTO log (line) VALUES (?)");
const line = LINE.toString();
insert.run(line);
await awaitGo();
for (let i = 0; i < Number(countText); i++) insert.run(line);
finished();
db.close();
