// Times for people, the same in the CLI and the web view: the local time with its offset from UTC, and
// how long ago. Stored and --json times stay ISO.

const two = (value: number) => String(value).padStart(2, "0");

/** "2026-12-03 15:20:01 +01:00": the local time with its offset from UTC. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const offset = -date.getTimezoneOffset();
  const zone = `${offset < 0 ? "-" : "+"}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())} ${zone}`;
}

/** "12 s ago", "3 min ago", "2 h ago", "5 d ago" (or "in …" for a time ahead). */
export function ago(iso: string, now: number): string {
  const delta = now - Date.parse(iso);
  const abs = Math.abs(delta);
  const [value, unit] = abs < 60_000 ? [abs / 1000, "s"] : abs < 3_600_000 ? [abs / 60_000, "min"] : abs < 86_400_000 ? [abs / 3_600_000, "h"] : [abs / 86_400_000, "d"];
  const text = `${Math.floor(value)} ${unit}`;
  return delta >= 0 ? `${text} ago` : `in ${text}`;
}

/** "2026-12-03 15:20:01 +01:00 (5 min ago)": absolute for the record, relative for a glance. */
export function when(iso: string, now: number): string {
  return `${localTime(iso)} (${ago(iso, now)})`;
}
