// `peerpost ui` on a PostgreSQL store whose database is away starts on this machine's mirror with a
// store_unreachable warning, as the people's commands do (docs/postgres.md), refuses writes with
// state_io_error, and shows what other machines sent once the database is back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { cli, request, startUi, write } from "./helpers/ui.js";
import { tempDir } from "./helpers/temp.js";
import { clusterScript, NO_POSTGRES } from "./helpers/postgres.js";
import { until } from "./helpers/poll.js";

test("with the database away, peerpost ui starts on the mirror with a warning, refuses writes with state_io_error, and follows again once it is back", async (t) => {
  const script = await clusterScript();
  if (!script.serverBinDir()) return t.skip(NO_POSTGRES);
  const cluster = (await script.startCluster()) as { url: string };
  t.after(() => script.stopCluster(cluster));
  const here = tempDir(t);
  const there = tempDir(t);
  const env = { PATH: "/usr/bin:/bin", HOME: here, PEERPOST_HOME: join(here, "state"), PEERPOST_STORE: cluster.url, PEERPOST_USER: "ana" };
  const other = { PATH: "/usr/bin:/bin", HOME: there, PEERPOST_HOME: join(there, "state"), PEERPOST_STORE: cluster.url };
  // This machine copied the store once (its mirror holds the first message).
  assert.equal((await cli(other, "send", "--from", "claude:elsewhere", "--to", "user:ana", "--anticipation", "reply", "before the outage")).code, 0);
  const inbox = await cli(env, "inbox", "--json");
  assert.equal(inbox.code, 0, inbox.stderr);
  assert.match(inbox.stdout, /before the outage/);

  script.stopServer(cluster, "immediate");
  const ui = await startUi(t, { env });
  await until(() => /store_unreachable/.test(ui.stderr()), 10_000, "the warning that the database is away, on stderr");
  const state = async () => (await request(ui.port, `/api/state?token=${ui.token}`)).body;
  assert.match(await state(), /before the outage/, "the mirror's mail is shown");
  const refused = await write(ui, "/api/send", { to: "user:bob", body: "while down" });
  assert.equal((JSON.parse(refused.body) as { error: { code: string } }).error.code, "state_io_error");

  script.startServer(cluster);
  await until(async () => (await cli(other, "send", "--from", "claude:elsewhere", "--to", "user:ana", "after the outage")).code === 0, 30_000, "a send once the database is back");
  await until(async () => (await state()).includes("after the outage"), 30_000, "the page to show mail sent after the outage");
});
