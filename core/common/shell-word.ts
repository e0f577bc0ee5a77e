// Text as one word of a POSIX shell command line: commands peerpost prints for a person to paste (set-up,
// a fix) and the scripts it writes (git hooks) name paths that may hold spaces or quotes.

const PLAIN_WORD = /^[\w@%+=:,./-]+$/;

/** Single-quoted, a quote inside closed and escaped: the shell reads back exactly `text`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** As it is when the shell reads it back unchanged (a plain path, owner/repo), else quoted. */
export function shellWord(text: string): string {
  return PLAIN_WORD.test(text) ? text : shellQuote(text);
}
