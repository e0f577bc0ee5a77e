// Which suite runs: scripts/test.mjs sets PEERPOST_TEST_SUITE=quick for `npm run test:quick`. A test that
// needs minutes of a loaded machine (kill loops over a large store) runs in the full suite only.

/** A skip reason in the quick suite, false in the full one: `test(name, { skip: fullSuiteOnly("why") }, …)`. */
export function fullSuiteOnly(why: string): string | false {
  return process.env.PEERPOST_TEST_SUITE === "quick" ? `full suite only: ${why}` : false;
}
