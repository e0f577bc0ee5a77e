// tmux commands of the tmux transport go through one long-lived control-mode client per tmux server: a
// real tmux server of the test's own, a stand-in TUI in its pane. The client answers in order, keeps
// arguments exactly as given, reports a failing command as an error, and when it is killed, commands
// still run (as their own processes) and a new client takes over; typing a request survives that too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { NO_TMUX, tuiInTmux, type TmuxServer } from "./helpers/tmux.js";
import { submittedLines } from "./helpers/fake-tui.js";
import { tmux, TmuxPush } from "../core/live/tmux.js";
import { TmuxCommandUnsure, controlClientFor } from "../core/live/tmux-control.js";
import { codexInputLine } from "../plugins/codex/terminal.js";
import { openPeerpost } from "../core/peerpost.js";
import { PushLoop } from "../core/server/push.js";
import { updateSwitches } from "../core/wake/switches.js";
import { recordTurn } from "../core/live/turns.js";
import { liveNote } from "../core/live/rules.js";


/** The control-mode clients attached to the test's tmux server, by process id. */
function controlClients(server: TmuxServer): number[] {
  return server
    .command("list-clients", "-F", "#{client_pid} #{client_control_mode}")
    .trim()
    .split("\n")
    .filter((line) => line.endsWith(" 1"))
    .map((line) => Number(line.split(" ")[0]));
}

test("one control client per tmux server answers in order, keeps arguments exactly, reports failures, and is replaced when killed", { skip: NO_TMUX, timeout: 60_000 }, async (t) => {
  const { server } = tuiInTmux(t, "peerpost-tmux-control-");
  const pane = server.pane();
  const client = controlClientFor(pane.socket);
  client.acquire();
  onCleanup(t, () => client.release());
  const size = server.command("display-message", "-p", "-t", pane.pane, "#{window_width}x#{window_height}");

  const answers = await Promise.all([1, 2, 3].map((n) => tmux(pane, ["display-message", "-p", "-t", pane.pane, `${n} #{pane_id}`])));
  assert.deepEqual(answers, [1, 2, 3].map((n) => `${n} ${pane.pane}\n`), "answers come back in the order the commands were written");
  const first = client.pid;
  assert.ok(first !== undefined);
  assert.deepEqual(controlClients(server), [first], "one control client, attached to the server");
  assert.equal(server.command("display-message", "-p", "-t", pane.pane, "#{window_width}x#{window_height}"), size, "the person's window keeps its size");

  const tricky = `it's "quoted" $HOME ~ #{pane_id} ; \\ %end 1 2 1 {braces}`;
  await tmux(pane, ["set-buffer", "-b", "peerpost-test", tricky]);
  // Read back by a tmux process of its own: show-buffer escapes what it prints to a control client.
  assert.equal(server.command("show-buffer", "-b", "peerpost-test"), tricky, "no quoting, expansion or separator inside an argument");
  await assert.rejects(tmux(pane, ["capture-pane", "-p", "-t", "%9999"]), /tmux capture-pane failed: can't find pane/);
  assert.equal(client.pid, first, "a failing command leaves the client running");

  process.kill(first, "SIGKILL");
  assert.equal(await tmux(pane, ["display-message", "-p", "-t", pane.pane, "after #{pane_id}"]), `after ${pane.pane}\n`, "a command sent as the client dies still gets its answer");
  await until(async () => (await tmux(pane, ["display-message", "-p", "x"])) === "x\n" && client.pid !== undefined && client.pid !== first, 10_000, "a new control client");
  assert.deepEqual(controlClients(server), [client.pid!], "the dead client is replaced by exactly one");

  client.release();
  await until(() => controlClients(server).length === 0, 10_000, "the client to leave when its last user releases it");
});

test("a request is typed into an idle TUI through the control client, and the next one still after that client was killed", { skip: NO_TMUX, timeout: 60_000 }, async (t) => {
  const { server, log, scratch } = tuiInTmux(t, "peerpost-tmux-control-");
  const stateDir = join(scratch, "state");
  const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir }, home: scratch });
  onCleanup(t, () => peerpost.backend.close());
  updateSwitches(stateDir, (switches) => void (switches.push = { tmux: { all: true } }));
  await server.inputShows(codexInputLine, "");
  const address = "codex:typed-into";
  const loop = new PushLoop(peerpost, new TmuxPush(peerpost, "codex", server.pane(), codexInputLine, server.panePid()), "codex");
  onCleanup(t, () => loop.stop());
  loop.start({ address, sessionId: "typed-into", source: "registry", detail: "test", verified: false });

  const typed = async (n: number): Promise<string> => {
    const { message } = await peerpost.mailbox.send({ from: "claude:asker", fromVerified: false, to: address, body: `request ${n}`, anticipation: "reply" });
    await until(() => submittedLines(log).some((line) => line.text.includes(`(message ${message.id})`)), 20_000, `request ${n} to be typed\n${server.capture()}`);
    // The session's hooks: the typed turn starts and ends (no model runs here).
    recordTurn(stateDir, address, "stop", new Date(Date.now() + 1).toISOString());
    return message.id;
  };
  const firstId = await typed(1);
  const [killed] = controlClients(server);
  assert.ok(killed !== undefined, "the TUI was read and typed into through a control client");
  process.kill(killed, "SIGKILL");
  const secondId = await typed(2);
  // Each receipt is written once its delivery returns, after the TUI took the line.
  const deliveries = () => [firstId, secondId].map((id) => peerpost.receipts.query({ kind: "push", address }).receipts.find((receipt) => receipt.messageId === id)?.delivery);
  await until(() => deliveries().every((delivery) => delivery !== undefined), 10_000, "both push receipts");
  assert.deepEqual(deliveries(), ["delivered", "delivered"]);
  const sent = peerpost.mailbox.view(address).state.messages;
  assert.deepEqual(submittedLines(log).map((line) => line.text), [firstId, secondId].map((id) => liveNote(sent[id]!)), "each request typed once, exactly as the note reads");
  await until(() => controlClients(server).length === 1 && !controlClients(server).includes(killed), 10_000, "one new control client");
  await loop.stop();
  await until(() => controlClients(server).length === 0, 10_000, "the control client to leave with the push loop");
});

test("typing that tmux took and did not answer is not typed again: it runs once or not at all", { skip: NO_TMUX, timeout: 120_000 }, async (t) => {
  const { server, log } = tuiInTmux(t, "peerpost-tmux-control-");
  await server.inputShows(codexInputLine, "");
  const pane = server.pane();
  const client = controlClientFor(pane.socket);
  client.acquire();
  onCleanup(t, () => client.release());
  // Through the control client (one that failed to start under load leaves commands to their own processes for a while).
  await until(async () => (await tmux(pane, ["display-message", "-p", "up"])) === "up\n" && client.pid !== undefined, 20_000, "the control client to run");
  const serverPid = Number(server.command("display-message", "-p", "#{pid}").trim());
  // A stopped tmux server takes the line into its socket buffer and answers nothing until it goes on.
  process.kill(serverPid, "SIGSTOP");
  let resumed = false;
  onCleanup(t, () => void (resumed || process.kill(serverPid, "SIGCONT")));
  const typing = tmux(pane, ["set-buffer", "-b", "peerpost-once", "typed once", ";", "paste-buffer", "-p", "-d", "-b", "peerpost-once", "-t", pane.pane, ";", "send-keys", "-t", pane.pane, "Enter"], { once: true });
  await assert.rejects(typing, TmuxCommandUnsure);
  process.kill(serverPid, "SIGCONT");
  resumed = true;
  // The server now runs what reached it before its client was ended: the line once, or (when the client
  // never passed it on, under load) not at all. Never twice: the typing was not run again another way.
  // The first look may meet the client that is being replaced (its answer then lost): looks run again.
  await until(async () => (await tmux(pane, ["display-message", "-p", "after"]).catch(() => "")) === "after\n", 20_000, "a look at the pane to run again");
  await new Promise((resolve) => setTimeout(resolve, 2000));
  assert.ok(submittedLines(log).length <= 1, `typed at most once: ${JSON.stringify(submittedLines(log))}`);
});
