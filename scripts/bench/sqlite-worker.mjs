// A bench worker for the SQLite baseline: commits `warmUps` single-row transactions before the start
// signal, then `count` from it, to one database in WAL mode with synchronous=FULL.
// argv: <database> <warmUps> <count> <goFile>
import { createRequire } from "node:module";
import { LINE, awaitGo, finished } from "./start-signal.mjs";

const [path, warmUpsText, countText] = process.argv.slice(2);
const Database = createRequire(import.meta.url)("better-sqlite3");
const db = new Database(path, { timeout: 60000 });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY, line TEXT NOT NULL)");
const insert = db.prepare("INSERT INTO log (line) VALUES (?)");
const line = LINE.toString();
for (let i = 0; i < Math.max(1, Number(warmUpsText)); i++) insert.run(line);
await awaitGo();
for (let i = 0; i < Number(countText); i++) insert.run(line);
finished();
db.close();
