// Text shown on a terminal: every code point either shows as itself or as ⟨U+XXXX⟩, and nothing that can
// hide, reorder or rewrite the screen is left raw. Walks every code point.
import { test } from "node:test";
import assert from "node:assert/strict";
import { visible } from "../core/security/visible.js";

const UNSAFE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}]|\p{Default_Ignorable_Code_Point}/u;

test("every code point is shown as itself or as ⟨U+XXXX⟩, never raw when it is unsafe", () => {
  let marked = 0;
  for (let code = 0; code <= 0x10ffff; code++) {
    const char = String.fromCodePoint(code);
    const shown = visible(char);
    const name = `⟨U+${code.toString(16).toUpperCase().padStart(4, "0")}⟩`;
    if (UNSAFE.test(char)) {
      assert.equal(shown, name, `U+${code.toString(16)}`);
      marked++;
    } else assert.equal(shown, char, `U+${code.toString(16)}`);
  }
  // Controls, bidi overrides, zero-width and tag characters, variation selectors, private use, separators.
  for (const char of ["\u001b", "\r", "\u202e", "\u200b", "\u{e0041}", "\u{e0100}", "\u2028", "\u2029", "\ufff0", "\u{1bca0}", "\u{1d173}", "\ue000"]) assert.notEqual(visible(char), char);
  assert.ok(marked > 900_000, `${marked} code points marked (private use and unassigned included)`);
});

test("bodies keep their newlines and tabs; one-line cells show them too", () => {
  assert.equal(visible("a\n\tb\r\n", true), "a\n\tb⟨U+000D⟩\n");
  assert.equal(visible("a\nb"), "a⟨U+000A⟩b");
  assert.equal(visible("I'm <b> & \"x\""), "I'm <b> & \"x\"", "nothing is HTML-escaped");
  assert.equal(visible("e\u0301 日本 🙂"), "e\u0301 日本 🙂", "combining marks, CJK and emoji stay");
});

test("emoji sequences stay emoji for people (ZWJ, skin tones, VS16, keycaps); lone joiners, bidi controls and tags stay escaped, and the model's envelope escapes them all", async () => {
  const { escapeForModel } = await import("../core/security/escape.js");
  assert.equal(visible("👩🏽‍💻 ❤️ 1️⃣ ✌🏿"), "👩🏽‍💻 ❤️ 1️⃣ ✌🏿");
  assert.equal(visible("a\u200Db 👩\u200D x\u202Ey"), "a⟨U+200D⟩b 👩⟨U+200D⟩ x⟨U+202E⟩y");
  assert.equal(visible("\u{1F3F4}\u{E0067}\u{E0062}\u{E007F}"), "\u{1F3F4}⟨U+E0067⟩⟨U+E0062⟩⟨U+E007F⟩", "tag characters can hide text: escaped even in a flag");
  assert.equal(visible("\uFE0Fx"), "⟨U+FE0F⟩x");
  assert.equal(escapeForModel("👩🏽‍💻"), "👩🏽&#x200D;💻");
});
