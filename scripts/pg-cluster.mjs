// A throwaway PostgreSQL cluster for tests, CI and the bench: initdb into a temp dir, a server on
// 127.0.0.1 at a free port, one role and one database for peerpost. PostgreSQL refuses to run as root,
// so as root the server runs as the `postgres` user (created when missing).
//   node scripts/pg-cluster.mjs start        prints `export PEERPOST_TEST_PG_URL=… PEERPOST_TEST_PG_DIR=…`
//   node scripts/pg-cluster.mjs stop DIR     stops the cluster started in DIR and removes DIR
// Tests import startCluster/stopCluster/stopServer/startServer from here.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";

const ROLE = "peerpost_test";
const DATABASE = "peerpost_test";

/** The newest installed server's bin dir (Debian layout), or PEERPOST_PG_BIN; undefined when there is none. */
export function serverBinDir() {
  const candidates = [];
  if (process.env.PEERPOST_PG_BIN) candidates.push(process.env.PEERPOST_PG_BIN);
  try {
    const versions = readdirSync("/usr/lib/postgresql").filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((version) => `/usr/lib/postgresql/${version}/bin`));
  } catch {
    // No Debian-style install.
  }
  return candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
}

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function isFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free port below Linux's ephemeral range (32768 and up): the server binds it seconds later (after
 * initdb) and again after each restart, and no listen(0) or outgoing connection can take it meanwhile.
 */
async function freePort() {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await isFree(port)) return port;
  }
  throw new Error("no free port between 20000 and 32000 on 127.0.0.1");
}

function run(command, args, { asUser, input } = {}) {
  // setpriv changes uid/gid without a login shell or PAM, and keeps the caller's environment.
  const [file, argv] = asUser ? ["setpriv", ["--reuid", String(asUser.uid), "--regid", String(asUser.gid), "--clear-groups", "--", command, ...args]] : [command, args];
  const result = spawnSync(file, argv, { encoding: "utf8", input, env: { ...process.env, LC_ALL: "C" } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout || result.error?.message}`);
  return result.stdout;
}

function idOf(name) {
  const result = spawnSync("id", ["-u", name], { encoding: "utf8" });
  if (result.status !== 0) return undefined;
  return { uid: Number(result.stdout.trim()), gid: Number(spawnSync("id", ["-g", name], { encoding: "utf8" }).stdout.trim()) };
}

/** The user the server runs as: ourselves, or `postgres` when we are root. */
function serverUser() {
  if (process.getuid?.() !== 0) return undefined;
  let user = idOf("postgres");
  if (!user) {
    run("useradd", ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", "postgres"]);
    user = idOf("postgres");
  }
  return user;
}

/** The cluster's handle, as a JSON file in its dir, so a separate `stop` finds the same server. */
function writeHandle(cluster) {
  writeFileSync(join(cluster.dir, "cluster.json"), JSON.stringify(cluster));
}

function readHandle(dir) {
  return JSON.parse(readFileSync(join(dir, "cluster.json"), "utf8"));
}

function pgCtl(cluster, args) {
  return run(join(cluster.bin, "pg_ctl"), ["-D", cluster.data, ...args], { asUser: cluster.user });
}

/** Starts the (stopped) server of a cluster again, on the same port: how tests bring a database back. */
export function startServer(cluster) {
  const options = [`-p ${cluster.port}`, `-k ${cluster.dir}`, "-c listen_addresses=127.0.0.1", "-c shared_buffers=16MB", "-c max_connections=200", "-c fsync=off", "-c full_page_writes=off", "-c autovacuum=off"].join(" ");
  pgCtl(cluster, ["-l", join(cluster.dir, "server.log"), "-o", options, "-w", "-t", "60", "start"]);
}

/** Stops the server; `immediate` is a crash (no checkpoint), as a database going away would be. */
export function stopServer(cluster, mode = "fast") {
  pgCtl(cluster, ["-m", mode, "-w", "-t", "60", "stop"]);
}

export async function startCluster() {
  const bin = serverBinDir();
  if (!bin) throw new Error("no PostgreSQL server binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin; install Debian's postgresql or set PEERPOST_PG_BIN");
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "peerpost-pg-"));
  // The socket dir is this one; others may traverse it (psql as root), only the server writes it.
  chmodSync(dir, 0o755);
  if (user) chownSync(dir, user.uid, user.gid);
  const password = randomBytes(12).toString("hex");
  const cluster = { dir, bin, user, data: join(dir, "data"), port: await freePort(), role: ROLE, database: DATABASE, password };
  try {
    run(join(bin, "initdb"), ["-D", cluster.data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"], { asUser: user });
    startServer(cluster);
    const sql = `CREATE ROLE ${ROLE} LOGIN CREATEDB PASSWORD '${password}'; CREATE DATABASE ${DATABASE} OWNER ${ROLE};`;
    run(join(bin, "psql"), ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", dir, "-p", String(cluster.port), "-U", "postgres", "-d", "postgres"], { input: sql.replace(/; /g, ";\n") });
    writeHandle(cluster);
  } catch (error) {
    stopCluster(cluster);
    throw error;
  }
  return { ...cluster, url: clusterUrl(cluster) };
}

export function clusterUrl(cluster, database = cluster.database) {
  return `postgres://${cluster.role}:${cluster.password}@127.0.0.1:${cluster.port}/${database}`;
}

/** Stops the server (if it runs) and removes the cluster's dir. */
export function stopCluster(cluster) {
  try {
    if (existsSync(join(cluster.data, "postmaster.pid"))) stopServer(cluster, "fast");
  } finally {
    rmSync(cluster.dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, dir] = process.argv.slice(2);
  if (command === "start") {
    const cluster = await startCluster();
    process.stdout.write(`export PEERPOST_TEST_PG_URL='${cluster.url}'\nexport PEERPOST_TEST_PG_DIR='${cluster.dir}'\n`);
    process.stderr.write(`PostgreSQL test cluster on 127.0.0.1:${cluster.port} in ${cluster.dir}\n`);
  } else if (command === "stop" && dir) {
    stopCluster(readHandle(dir));
  } else {
    process.stderr.write("usage: node scripts/pg-cluster.mjs start | stop DIR\n");
    process.exit(2);
  }
}
