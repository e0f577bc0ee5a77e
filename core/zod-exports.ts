// The zod/mini functions peerpost's schemas and config use. The bundles load zod through this list
// (see core/zod.ts and scripts/build.mjs), so they carry these and nothing else of zod/mini's 400 KB.
export { NEVER, array, boolean, discriminatedUnion, enum, gte, int, iso, literal, lte, maxLength, minLength, number, optional, pipe, refine, regex, strictObject, string, transform, trim } from "zod/mini";
