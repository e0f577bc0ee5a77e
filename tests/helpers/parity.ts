// Runs one script of MCP tool calls against the file store and against PostgreSQL, and normalises the
// results (ids, times, temp paths) so the two transcripts compare line by line.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { tempDir } from "./temp.js";
import { CLI, connect, type Session } from "./mcp.js";
import { testDatabase } from "./postgres.js";
import { tempRepo } from "./repo.js";

export interface ParityWorld {
  home: string;
  stateDir: string;
  repo: string;
  env: Record<string, string>;
  session(address: string, extra?: Record<string, string>): Promise<Session>;
  /** Records one call's whole result (structured content, isError, text) under a label. */
  call(who: Session, label: string, name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  note(label: string, value: unknown): void;
  transcript: Array<{ label: string; value: unknown }>;
}

export async function world(t: TestContext, backend: Record<string, string>): Promise<ParityWorld> {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const repo = tempRepo(t);
  const env = { HOME: home, PEERPOST_HOME: stateDir, ...backend };
  const transcript: ParityWorld["transcript"] = [];
  const w: ParityWorld = {
    home,
    stateDir,
    repo,
    env,
    transcript,
    session: async (address, extra = {}) => {
      const session = await connect(t, { ...env, PEERPOST_ADDRESS: address, ...extra }, CLI, ["serve"], repo);
      await session.call("health");
      return session;
    },
    call: async (who, label, name, args = {}) => {
      const raw = await who.raw(name, args);
      transcript.push({ label, value: { isError: raw.isError ?? false, structured: raw.structuredContent } });
      return raw.structuredContent ?? {};
    },
    note: (label, value) => void transcript.push({ label, value }),
  };
  return w;
}

/** The transcript with ids numbered by first appearance, times, temp paths and the machine id blanked. */
export function normalise(transcript: ParityWorld["transcript"], w: ParityWorld, extra: Array<[RegExp, string]> = []): string[] {
  const ids = new Map<string, string>();
  // Each store's machine id (host name and a random suffix): one per state dir.
  const machinePath = join(w.stateDir, "machine-id");
  const machine = existsSync(machinePath) ? readFileSync(machinePath, "utf8").trim() : undefined;
  return transcript.map(({ label, value }) => {
    let text = JSON.stringify(value);
    text = text.split(w.repo).join("<REPO>").split(w.stateDir).join("<STATE>").split(w.home).join("<HOME>");
    if (machine !== undefined) text = text.split(machine).join("<MACHINE>");
    for (const [pattern, replacement] of extra) text = text.replace(pattern, replacement);
    text = text.replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, (id) => {
      if (!ids.has(id)) ids.set(id, `ID${ids.size + 1}`);
      return ids.get(id)!;
    });
    text = text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<T>");
    text = text.replace(/postgres:\/\/[^"\s]*/g, "<STORE>");
    return `${label}: ${text}`;
  });
}

export async function bothStores(t: TestContext, script: (w: ParityWorld) => Promise<void>, extra: Array<[RegExp, string]> = []): Promise<{ file: string[]; postgres: string[] } | undefined> {
  const url = await testDatabase(t);
  if (!url) return undefined;
  const file = await world(t, {});
  await script(file);
  const pg = await world(t, { PEERPOST_STORE: url });
  await script(pg);
  return { file: normalise(file.transcript, file, extra), postgres: normalise(pg.transcript, pg, extra) };
}
