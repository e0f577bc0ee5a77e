// Runs a store-level test on both backends: the file store, and PostgreSQL (a fresh database on the test
// cluster; skipped with the reason when no PostgreSQL server can run here). The test gets the env that
// selects its backend, to merge into every peerpost it opens.
import { test, type TestContext } from "node:test";
import { NO_POSTGRES, testDatabase } from "./postgres.js";

export type BackendEnv = Record<string, string>;

export function testEachBackend(name: string, run: (t: TestContext, backend: BackendEnv) => Promise<void>): void {
  test(`${name} [file]`, (t) => run(t, {}));
  test(`${name} [postgres]`, async (t) => {
    const url = await testDatabase(t);
    if (!url) return t.skip(NO_POSTGRES);
    await run(t, { PEERPOST_STORE: url });
  });
}
