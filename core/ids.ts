// Message and receipt ids: monotonic ULIDs. The ulid package loads node:crypto, so it is imported on
// the first id, never by a reader that only looks.
type IdFactory = (seedTime?: number) => string;

let factory: Promise<IdFactory> | undefined;

export function idFactory(): Promise<IdFactory> {
  factory ??= import("ulid").then(({ monotonicFactory }) => monotonicFactory());
  return factory;
}
