// Your own state dir, or its mailbox, with a mode others can write (a restore from a backup, a copy under
// another umask). Every command refuses it, rightly; its hint is what the person runs next: the fix that
// keeps the mail (chmod, with the path), not "Remove it (it is recreated)", which deletes every message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { cli } from "./helpers/cli.js";

test("a state dir or mailbox of your own that others can write is refused with the chmod that fixes it, not 'remove it'", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "ana" };
  assert.equal((await cli(env, "send", "--from", "user:bob", "--to", "user:ana", "--anticipation", "reply", "keep me")).code, 0);
  const mailbox = join(stateDir, "mailbox.jsonl");
  assert.ok(existsSync(mailbox));

  chmodSync(stateDir, 0o777);
  for (const args of [["inbox"], ["doctor"]]) {
    const refused = await cli(env, ...args);
    assert.equal(refused.code, 1);
    const said = refused.stderr + refused.stdout;
    assert.match(said, /other users can write to it \(mode 0777\)/);
    assert.ok(said.includes(`chmod 700 ${stateDir}`), `${args[0]} does not give the fix:\n${said}`);
    assert.doesNotMatch(said, /Remove it/, `${args[0]} tells the person to remove the state dir that holds the mail:\n${said}`);
  }
  chmodSync(stateDir, 0o700);

  chmodSync(mailbox, 0o666);
  const refused = await cli(env, "inbox");
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /other users can write to it \(mode 0666\)/);
  assert.ok(refused.stderr.includes(`chmod 600 ${mailbox}`), refused.stderr);
  assert.doesNotMatch(refused.stderr, /Remove it/, refused.stderr);
  chmodSync(mailbox, 0o600);
  // The mail is still there for whoever followed the hint.
  assert.match((await cli(env, "inbox")).stdout, /keep me/);
});
