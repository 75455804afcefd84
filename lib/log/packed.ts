import type { ResponseStreamEvent } from '../events/responses.js';
import { logCapability } from './capability.js';
import type { EventLog, LogScope } from './types.js';

// A log that stores each event as its JSON may take a writer's events encoded as they are pushed: a queued
// event then waits for its append (a round trip, while the one before is in flight) as one flat string instead
// of its object graph, which the garbage collector would copy and promote (much of a bulk producer's CPU).
// Registered per log object (lib/log/capability.ts): a wrapper forwards it (`forwardPacked`).

/** What `append` takes: the events' marks (`seq`, or `-1 - seq` for a terminal event) and their JSON, in order. */
export interface PackedEvents {
  readonly marks: readonly number[];
  readonly jsons: readonly string[];
}

export interface PackedAppend {
  /** The JSON the log stores for `e` (a placeable event); throws as `JSON.stringify` does. */
  readonly encode: (e: ResponseStreamEvent) => string;
  /** As `EventLog.append`, for events encoded by `encode`. */
  readonly append: (scope: LogScope, token: number, events: PackedEvents) => Promise<void>;
}

const packed = logCapability<PackedAppend>();

/** @internal Says that `log` takes packed appends. */
export const takesPacked: <L extends EventLog>(log: L, p: PackedAppend) => L = packed.give;

/** @internal The packed appends of `log`, when it is one that takes them. */
export const packedAppendOf: (log: EventLog) => PackedAppend | undefined = packed.of;

/** @internal Registers `wrapper`, a wrapper of `log`, as taking packed appends exactly when `log` does (see `LogCapability.forward`). */
export const forwardPacked: <L extends EventLog>(wrapper: L, log: EventLog, wrap: (p: PackedAppend) => PackedAppend) => L = packed.forward;
