// The web view's rows of `npm run bench`, in Debian's Chromium, each against `peerpost ui` over an empty
// mailbox in the same run:
// - `--only ui`: the page rendered (its state drawn) over 10k messages;
// - `--only uibig`: over 100k messages (1M with --big), three targets: first contentful paint ≤ 300 ms
//   (beside it, in the same run, the FCP of a one-line page with the ui's own headers from a plain node
//   server: what Chromium's new renderer process and first frame cost before any work of the page's),
//   the ui process's peak RSS ≤ 150 MB, and live update p50 ≤ 100 ms (a message sent by a CLI process,
//   from its id's time stamp to the moment the page shows it). The log is indexed first, as the servers
//   and hooks that wrote it would have, and compaction is set out of reach, so the whole log stays live
//   (the harder case).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { generateMailbox } from "./mailbox-generator.mjs";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"];
const PERSON = "bench";
const ms = (value) => `${value.toFixed(1)} ms`;

/** VmHWM (peak resident set) of a process, in MB. */
function peakRssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((entry) => entry.startsWith("VmHWM:"));
  return Number(line.split(/\s+/)[1]) / 1024;
}

function run(command, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`))));
  });
}

/** `peerpost ui --no-open` over a state dir of its own holding `messages` generated ones (indexed when `index`). */
async function startUi({ root, work, name, messages, index, openPeerpost }) {
  const home = join(work, `ui-${name}`);
  const stateDir = join(home, ".peerpost");
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH, HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: PERSON, PEERPOST_COMPACT_AT_BYTES: String(2 ** 40) };
  if (messages > 0) {
    const began = Date.now();
    const { bytes } = generateMailbox(join(stateDir, "mailbox.jsonl"), { messages, pendingFor: `user:${PERSON}` });
    if (index) {
      const store = openPeerpost({ env, home });
      store.mailbox.indexAll();
      await store.backend.close();
    }
    console.error(`  generated${index ? " and indexed" : ""} ${messages} messages (${(bytes / 1e6).toFixed(0)} MB) in ${((Date.now() - began) / 1000).toFixed(1)} s`);
  }
  const began = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(root, "dist/cli.mjs"), "ui", "--no-open"], { env, stdio: ["ignore", "pipe", "ignore"] });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => resolve(String(chunk).trim().split("\n")[0]));
    child.on("exit", (code) => reject(new Error(`peerpost ui exited ${code}`)));
  });
  const stop = async () => {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", resolve)));
    rmSync(home, { recursive: true, force: true });
  };
  return { child, url, env, stop, startMs: Number(process.hrtime.bigint() - began) / 1e6 };
}

/**
 * A person's browser: one profile, one window, warmed by a throwaway tab so that no measured load pays
 * for the browser's own start-up. Each load opens a new tab in it, as opening the printed URL does
 * (`browser.newPage()` would open each in a new profile of its own).
 */
async function warmBrowser(url) {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const profile = await browser.newContext();
  const warm = await profile.newPage();
  await warm.goto(url.replace("/?", "/icon.svg?"));
  await warm.close();
  return profile;
}

/**
 * A plain node server answering every request with a one-line page and the ui's own response headers
 * (its CSP and the rest, copied from the ui's answer): its FCP in a new tab is what Chromium's new tab and
 * first frame cost on this machine before any work of the page's. At `/coop` the same page also sends
 * Cross-Origin-Opener-Policy: same-origin, which the ui leaves out (core/ui/headers.ts): what it would cost.
 */
async function startOneLinePage(uiUrl) {
  const { headers } = await fetch(uiUrl);
  const kept = Object.fromEntries([...headers].filter(([name]) => !["content-length", "date", "connection", "keep-alive", "transfer-encoding"].includes(name)));
  const body = "<!doctype html><title>peerpost</title><p>peerpost</p>";
  const server = createServer((request, response) => {
    response.writeHead(200, request.url.startsWith("/coop") ? { ...kept, "cross-origin-opener-policy": "same-origin" } : kept);
    response.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, coopUrl: `${url}coop`, stop: () => new Promise((resolve) => server.close(resolve)) };
}

/** The first contentful paint of the page a tab shows, once it has one (its entry comes when the frame is presented). */
function firstContentfulPaint(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) =>
        new PerformanceObserver((list, observer) => {
          const entry = list.getEntriesByName("first-contentful-paint")[0];
          if (!entry) return;
          observer.disconnect();
          resolve(entry.startTime);
        }).observe({ type: "paint", buffered: true }),
      ),
  );
}

/** One load of the page in a new tab: when it was drawn from the state, and its first contentful paint. */
async function loadPage(profile, url) {
  const page = await profile.newPage();
  await page.goto(url);
  await page.waitForSelector("body[data-version]");
  const timing = { rendered: await page.evaluate(() => performance.getEntriesByName("peerpost-rendered")[0].startTime), fcp: await firstContentfulPaint(page) };
  await page.close();
  return timing;
}

/** The first contentful paint of `url` opened in a new tab. */
async function tabFcp(profile, url) {
  const page = await profile.newPage();
  await page.goto(url);
  const fcp = await firstContentfulPaint(page);
  await page.close();
  return fcp;
}

/** `loads` loads of each server's page, interleaved (with as many of the one-line page, with and without COOP, when given). */
async function loadTimes(profile, servers, loads, oneLine) {
  const times = Object.fromEntries(Object.keys(servers).map((name) => [name, { fcp: [], rendered: [] }]));
  times.oneLine = [];
  times.oneLineCoop = [];
  for (let i = 0; i < loads; i++) {
    for (const name of Object.keys(servers)) {
      const timing = await loadPage(profile, servers[name].url);
      times[name].fcp.push(timing.fcp);
      times[name].rendered.push(timing.rendered);
    }
    if (oneLine) {
      times.oneLine.push(await tabFcp(profile, oneLine.url));
      times.oneLineCoop.push(await tabFcp(profile, oneLine.coopUrl));
    }
  }
  return times;
}

/** The web view: first render of the page over a 10k-message mailbox vs an empty one. */
export async function benchUi({ root, work, runs, report, median, openPeerpost }) {
  if (!existsSync(CHROMIUM)) return console.error(`\nui: skipped, ${CHROMIUM} is missing`);
  const size = 10_000;
  console.error(`\nui: page rendered (its state drawn) over ${size} messages vs an empty mailbox, ${runs} loads each, interleaved`);
  const servers = { large: await startUi({ root, work, name: "large", messages: size, index: false, openPeerpost }), empty: await startUi({ root, work, name: "empty", messages: 0, openPeerpost }) };
  const profile = await warmBrowser(servers.empty.url);
  try {
    const first = { large: await loadPage(profile, servers.large.url), empty: await loadPage(profile, servers.empty.url) };
    const times = await loadTimes(profile, servers, runs);
    report(`ui first view ${size} ms`, first.large.rendered, "empty mailbox ms", first.empty.rendered, `(first load after start; FCP ${ms(first.large.fcp)} vs ${ms(first.empty.fcp)})`);
    report(`ui rendered ${size} median ms`, median(times.large.rendered), "empty mailbox median ms", median(times.empty.rendered), `(FCP median ${ms(median(times.large.fcp))} vs ${ms(median(times.empty.fcp))})`);
  } finally {
    await profile.browser().close();
    for (const server of Object.values(servers)) await server.stop();
  }
}

/** Live update latency: a page open on each server; a CLI process sends to the person, and the page marks when the message shows. */
async function liveLatency(profile, servers, sends, cli) {
  const { decodeTime } = await import("ulid");
  const pages = {};
  const latency = {};
  for (const name of Object.keys(servers)) {
    pages[name] = await profile.newPage();
    await pages[name].goto(servers[name].url);
    await pages[name].waitForSelector("body[data-version]");
    latency[name] = [];
  }
  for (let i = 0; i < sends; i++)
    for (const name of Object.keys(servers)) {
      const marker = `live update ${name} ${i} ${Date.now()}`;
      const page = pages[name];
      await page.evaluate((text) => {
        window.__seen = new Promise((resolve) => {
          const observer = new MutationObserver(() => {
            if (document.querySelector("#conversations")?.textContent?.includes(text)) {
              observer.disconnect();
              resolve(Date.now());
            }
          });
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        });
      }, marker);
      const out = await run(process.execPath, [cli, "send", "--from", "codex:bench-peer", "--to", `user:${PERSON}`, "--json", marker], servers[name].env);
      // A ULID carries the time it was made, in ms: the send's own time stamp, taken just before its append.
      const sentAt = decodeTime(JSON.parse(out).messageId);
      latency[name].push((await page.evaluate(() => window.__seen)) - sentAt);
    }
  return latency;
}

/** The web view over a large mailbox: FCP, the ui process's peak RSS and live update latency, against an empty mailbox. */
export async function benchUiScale({ root, work, sizes, runs, report, median, percentile, openPeerpost }) {
  if (!existsSync(CHROMIUM)) return console.error(`\nuibig: skipped, ${CHROMIUM} is missing`);
  for (const size of sizes) {
    const loads = runs;
    const sends = Math.min(runs, 21);
    console.error(`\nuibig: the web view over ${size} messages vs an empty mailbox: first contentful paint over ${loads} loads each, interleaved with as many of a one-line page with the ui's headers; live update over ${sends} CLI sends each, interleaved; the ui process's peak RSS (VmHWM) at the end`);
    const servers = { large: await startUi({ root, work, name: `large-${size}`, messages: size, index: true, openPeerpost }), empty: await startUi({ root, work, name: `empty-${size}`, messages: 0, openPeerpost }) };
    const oneLine = await startOneLinePage(servers.empty.url);
    const profile = await warmBrowser(servers.empty.url);
    try {
      const times = await loadTimes(profile, servers, loads, oneLine);
      const latency = await liveLatency(profile, servers, sends, join(root, "dist/cli.mjs"));
      const rss = { large: peakRssMb(servers.large.child.pid), empty: peakRssMb(servers.empty.child.pid) };
      const oneLineFcpMs = median(times.oneLine);
      report(`ui ${size} first contentful paint median ms`, median(times.large.fcp), "one-line page with the ui's headers FCP median ms", oneLineFcpMs, `(target ≤ 300 ms absolute; the page's own part: ${ms(median(times.large.fcp) - oneLineFcpMs)}, the rest is Chromium's new tab and first frame; empty mailbox FCP ${ms(median(times.empty.fcp))}; spread ${ms(Math.min(...times.large.fcp))}–${ms(Math.max(...times.large.fcp))}; state drawn: ${ms(median(times.large.rendered))} vs ${ms(median(times.empty.rendered))}; the one-line page with Cross-Origin-Opener-Policy: same-origin, which calls for a new renderer process: ${ms(median(times.oneLineCoop))}; ui started in ${ms(servers.large.startMs)} vs ${ms(servers.empty.startMs)})`);
      report(`ui ${size} peak RSS MB`, rss.large, "empty mailbox peak RSS MB", rss.empty, "(target ≤ 150 MB; VmHWM of the ui process after the loads and sends)");
      report(`ui ${size} live update p50 ms`, percentile(latency.large, 50), "empty mailbox live update p50 ms", percentile(latency.empty, 50), `(target ≤ 100 ms; CLI send's id time → shown on the page; p90 ${ms(percentile(latency.large, 90))} vs ${ms(percentile(latency.empty, 90))})`);
    } finally {
      await profile.browser().close();
      await oneLine.stop();
      for (const server of Object.values(servers)) await server.stop();
    }
  }
}
