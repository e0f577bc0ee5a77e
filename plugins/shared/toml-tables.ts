// A small TOML reader: table headers and `key = value` lines, enough for the config files Codex and Grok
// write themselves and for telling whether a table is defined already (TOML forbids defining one twice).

export type Tables = Map<string, Map<string, string>>;

/** Splits a dotted key (`a."b.c".d`) into its parts. */
function splitDottedKey(text: string): string[] {
  const parts: string[] = [];
  const pattern = /\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(\.|$)/y;
  let match: RegExpExecArray | null;
  while (pattern.lastIndex < text.length && (match = pattern.exec(text)) !== null) {
    parts.push(match[1] !== undefined ? JSON.parse(`"${match[1]}"`) : (match[2] ?? match[3] ?? ""));
    if (match[4] === "") break;
  }
  return parts;
}

function stringValue(raw: string): string {
  const value = raw.trim();
  if (value.startsWith('"')) {
    const end = /^"((?:[^"\\]|\\.)*)"/.exec(value);
    return end ? (JSON.parse(`"${end[1]}"`) as string) : value;
  }
  if (value.startsWith("'")) return value.slice(1, value.indexOf("'", 1));
  return value.replace(/\s+#.*$/, "");
}

/** Every table path (parts joined with \u0000) → its keys and raw values. */
export function readTomlTables(text: string): Tables {
  const tables: Tables = new Map();
  let current: string[] = [];
  const put = (path: string[], key: string, value: string) => {
    const id = path.join("\u0000");
    if (!tables.has(id)) tables.set(id, new Map());
    tables.get(id)!.set(key, value);
  };
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[(?!\[)(.*)\]\s*(#.*)?$/.exec(line);
    if (header) {
      current = splitDottedKey(header[1]!);
      if (!tables.has(current.join("\u0000"))) tables.set(current.join("\u0000"), new Map());
      continue;
    }
    const assignment = /^\s*((?:"(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_.-]+|\s)+?)\s*=\s*(.*)$/.exec(line);
    if (!assignment || line.trimStart().startsWith("#")) continue;
    const key = splitDottedKey(assignment[1]!);
    if (key.length === 0) continue;
    put([...current, ...key.slice(0, -1)], key[key.length - 1]!, stringValue(assignment[2]!));
  }
  return tables;
}
