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
// A line passed over is not checked either: a scoped view reports only the corrupt lines it parsed.

const ROLE = Buffer.from('"role');
const VIA = Buffer.from('"via"');
const MSG = Buffer.from('"msg"');
const ID_KEY = Buffer.from('"id"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const LETTER_U = 0x75;
const SLASH = 0x2f;

function isJsonSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

function startsAt(line: Buffer, at: number, token: Buffer): boolean {
  if (at + token.length > line.length) return false;
  for (let index = 1; index < token.length; index++) if (line[at + index] !== token[index]) return false;
  return true;
}

/** The string value of the key that ends at `at` (just past its closing quote), or undefined when it has none. */
function stringValueAfter(line: Buffer, at: number): string | undefined {
  let index = at;
  while (isJsonSpace(line[index])) index++;
  if (line[index] !== COLON) return undefined;
  index++;
  while (isJsonSpace(line[index])) index++;
  if (line[index] !== QUOTE) return undefined;
  const end = line.indexOf(QUOTE, index + 1);
  return end < 0 ? undefined : line.toString("latin1", index + 1, end);
}

/**
 * A test for whether a line may change the fold of `scope`'s view; `holds` says whether the view holds a
 * message, asked when the test runs (a line about a message the view took in lines earlier is kept).
 * One pass over the bytes, looking at what follows each quote that is not escaped: a fraction of a parse.
 */
export function scopeLineTest(scope: string, holds: (id: string) => boolean): (line: Buffer) => boolean {
  const address = Buffer.from(JSON.stringify(scope));
  return (line) => {
    let via = false;
    let msg = false;
    for (let index = 0; index < line.length; index++) {
      const byte = line[index];
      if (byte === BACKSLASH) {
        const escaped = line[index + 1];
        if (escaped === LETTER_U || escaped === SLASH) return true;
        // Whatever it escapes (a quote too) is inside a string: no token starts there.
        index++;
        continue;
      }
      if (byte !== QUOTE) continue;
      if (startsAt(line, index, address) || startsAt(line, index, ROLE)) return true;
      if (startsAt(line, index, ID_KEY)) {
        const id = stringValueAfter(line, index + ID_KEY.length);
        if (id !== undefined && holds(id)) return true;
      } else if (startsAt(line, index, VIA)) via = true;
      else if (startsAt(line, index, MSG)) msg = true;
    }
    return via && msg;
  };
}
