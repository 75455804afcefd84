import type { ResponseStreamEvent } from '../events/responses.js';
import { logCapability } from './capability.js';
import type { EventLog, LogScope } from './types.js';

// A log whose append needs no I/O (memoryEventLog) may acknowledge a writer's append at once: at one event per
// append (the gateway's recording, `maxBatchDelayMs: 0`) the promise of an `async append`, the wrappers' chained
// reactions and the writer's own were most of what an append cost. Registered per log object (lib/log/capability.ts): a
// wrapper forwards it (`forwardSync`).

/**
 * As `EventLog.append`, answering `undefined` when the append is stored and acknowledged already, or a promise
 * (a rejected one when it failed) to wait for as for `append`'s. A failure is never thrown, so that it reaches the
 * writer when and as an `append`'s rejection would.
 */
export type SyncAppend = (scope: LogScope, token: number, events: readonly ResponseStreamEvent[]) => Promise<void> | undefined;

const sync = logCapability<SyncAppend>();

/** @internal Says that `log` can acknowledge appends at once, through `append`. */
export const appendsSync: <L extends EventLog>(log: L, append: SyncAppend) => L = sync.give;

/** @internal The synchronous appends of `log`, when it has them. */
export const syncAppendOf: (log: EventLog) => SyncAppend | undefined = sync.of;

/** @internal Registers `wrapper`, a wrapper of `log`, as appending synchronously exactly when `log` does (see `LogCapability.forward`). */
export const forwardSync: <L extends EventLog>(wrapper: L, log: EventLog, wrap: (append: SyncAppend) => SyncAppend) => L = sync.forward;
