// Which log lines may change one address's fold, told from their bytes without parsing them. A send folds
// every other writer's new lines into its sender's view first; with many writers most of them are other
// addresses' mail, and parsing them was the part of a send that grew with the number of writers.
//
// JSON.stringify (every peerpost writer) spells addresses, keys and ids literally. A line is passed over
// only when none of the tokens a fold of the scope acts on is in it:
// - the scope's address as a string (a message to or from it);
// - a string starting "role" (every view folds role events) and a message's "via" (every view keeps role
//   mail; deliveries have a "via" too, but no "msg");
// - an "id" key whose value is a message the view holds (events about its messages);
// - \u or \/ escapes, which could spell any of those otherwise (a hand-written line): parsed, to be sure.
// One regular expression finds them all in the line's text, escaped or not: a token that only a body
// quotes (escaped) may make a line parsed for nothing, never one passed over wrongly. A fraction of a parse.
// A line passed over is not checked either: a scoped view reports only the corrupt lines it parsed.

/** Characters a regular expression reads as syntax, escaped to be matched as themselves. */
function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A test for whether a line may change the fold of `scope`'s view; `holds` says whether the view holds a
 * message, asked when the test runs (a line about a message the view took in lines earlier is kept).
 */
export function scopeLineTest(scope: string, holds: (id: string) => boolean): (line: Buffer) => boolean {
  // An escape that could spell a token; "role…, "via", "msg", an "id" key with its string value; the address.
  const tokens = new RegExp(`\\\\[u/]|"(?:role|via"|msg"|id"\\s*:\\s*"([^"\\\\]*)")|${literally(JSON.stringify(scope))}`, "g");
  return (line) => {
    // Latin-1: one character per byte, so every ASCII token reads as itself whatever the other bytes are.
    const text = line.toString("latin1");
    tokens.lastIndex = 0;
    let via = false;
    let msg = false;
    for (let match = tokens.exec(text); match !== null; match = tokens.exec(text)) {
      const id = match[1];
      if (id !== undefined) {
        if (holds(id)) return true;
      } else if (match[0] === '"via"') via = true;
      else if (match[0] === '"msg"') msg = true;
      else return true;
    }
    return via && msg;
  };
}
