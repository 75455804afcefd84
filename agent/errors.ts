import { OpenAIRxError } from '../lib/errors.js';

/**
 * `runAgent` ran `maxTurns` turns and the model still asked for tools. Raised after the last turn's events
 * (and its tool results) were emitted. `items` (not enumerable, so `toJSON` and loggers skip the conversation)
 * is every item so far, the last tool outputs included: `runAgent({ ...request, input: e.items }, options)`
 * carries on where it stopped.
 */
export class MaxTurnsError extends OpenAIRxError {
  override readonly name = 'MaxTurnsError';
  readonly code = 'max_turns';
  declare readonly items: readonly unknown[];
  constructor(
    readonly maxTurns: number,
    /** The id of the last response (store: true), to continue with `previous_response_id`. */
    readonly responseId: string | undefined,
    items: readonly unknown[] = [],
  ) {
    super(`the model still called tools after maxTurns (${maxTurns}) turns`);
    Object.defineProperty(this, 'items', { value: items, enumerable: false, configurable: true });
  }
}

/**
 * A `computer` handler failed or returned no screenshot. A `computer_call_output` has no way to say "failed"
 * to the model (it must carry a screenshot), so this one failure ends the run instead of going back as output.
 */
export class ClientToolError extends OpenAIRxError {
  override readonly name = 'ClientToolError';
  readonly code = 'client_tool_failed';
  constructor(readonly callId: string, readonly reason: string, detail: string) {
    super(`the computer_call ${callId} could not be answered (${reason}): ${detail}`);
  }
}
