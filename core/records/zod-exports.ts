// The zod/mini functions peerpost's record schemas use. The bundles load zod through this list
// (see core/records/zod.ts and scripts/build.mjs), so they carry these and nothing else of zod/mini's 400 KB.
export { array, boolean, discriminatedUnion, enum, gte, int, iso, literal, maxLength, minLength, number, optional, refine, regex, strictObject, string } from "zod/mini";
