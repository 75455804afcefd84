import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { createPartialJsonParser, type PartialJsonParser } from '../lib/json/partial-json.js';
import { asRecord, field, isIndex, stringField } from './internal/parts.js';
import type { PartialValue } from './partialJson.js';

/** A function call's arguments as far as they have streamed (see {@link partialToolCalls}). */
export interface PartialToolCall<A = unknown> {
  readonly call_id: string;
  readonly name: string;
  readonly item_id: string | undefined;
  readonly output_index: number;
  /** The arguments parsed so far (`partialJson`'s partial value); with `done`, the whole parsed arguments. */
  readonly arguments: PartialValue<A>;
  /** The arguments are complete (`response.function_call_arguments.done` or the item's `.done`). */
  readonly done: boolean;
}

interface Call {
  readonly callId: string;
  readonly name: string;
  readonly itemId: string | undefined;
  readonly outputIndex: number;
  parser: PartialJsonParser;
  fed: string;
  done: boolean;
}

/**
 * Each function call's arguments as they stream: per call (opened by `response.output_item.added` of type
 * `function_call`, then `response.function_call_arguments.delta` / `.done`, matched by `item_id` or
 * `output_index`) a `PartialToolCall` each time its partial arguments change, one incremental parser per call
 * fed only the new characters; then one with `done: true` and the parsed arguments (deep-equal to
 * `JSON.parse` of the `.done` arguments). So a UI can show a call's input filling in before it is complete.
 * Other items and events pass unseen. Arguments that are not JSON are a `JsonTextError` whose message names
 * the call (its `name` and `call_id`); the source's errors pass through.
 *
 * ```
 * events:  --added(fc)--d({"city":"Pa)--d(ris"})--done({"city":"Paris"})--|
 *   partialToolCalls()
 * out:     -------------a----------------b------------c--------------------|
 *   a = { name, call_id, arguments: { city: 'Pa' }, done: false }
 *   b = { …, arguments: { city: 'Paris' }, done: false }
 *   c = { …, arguments: { city: 'Paris' }, done: true }
 * ```
 *
 * ```ts
 * events$.pipe(partialToolCalls()).subscribe((call) => showToolInput(call.call_id, call.name, call.arguments, call.done));
 * ```
 */
export function partialToolCalls<A = unknown>(): OperatorFunction<ResponseStreamEvent, PartialToolCall<A>> {
  return (source) =>
    new Observable<PartialToolCall<A>>((subscriber) => {
      // A response's calls by output_index and by item_id (a new response starts them afresh).
      let byIndex = new Map<number, Call>();
      let byItem = new Map<string, Call>();

      const emit = (c: Call, value: unknown): void => {
        subscriber.next({ call_id: c.callId, name: c.name, item_id: c.itemId, output_index: c.outputIndex, arguments: value as PartialValue<A>, done: c.done });
      };
      /** A parser's JsonTextError, its message naming the call whose arguments it read. */
      const named = (c: Call, err: unknown): unknown => {
        if (err instanceof Error) err.message = `the arguments of function call ${JSON.stringify(c.name)} (call_id ${JSON.stringify(c.callId)}): ${err.message}`;
        return err;
      };
      const feed = (c: Call, chunk: string): void => {
        if (chunk === '' || c.done) return;
        c.fed += chunk;
        let changed: boolean;
        try {
          changed = c.parser.write(chunk);
        } catch (err) {
          throw named(c, err);
        }
        if (changed) emit(c, c.parser.value);
      };
      /** The call's whole arguments are `whole`: what is new is fed (a correction reads them again). */
      const settle = (c: Call, whole: string): void => {
        if (whole === c.fed) return;
        if (whole.startsWith(c.fed)) return feed(c, whole.slice(c.fed.length));
        c.parser = createPartialJsonParser();
        c.fed = '';
        feed(c, whole);
      };
      const finish = (c: Call, whole: string | undefined): void => {
        if (c.done) return;
        if (whole !== undefined) settle(c, whole);
        let value: unknown;
        try {
          value = c.parser.end();
        } catch (err) {
          throw named(c, err);
        }
        c.done = true;
        emit(c, value);
      };
      const find = (e: Record<string, unknown>): Call | undefined => {
        const id = e['item_id'];
        if (typeof id === 'string' && id !== '') {
          const c = byItem.get(id);
          if (c !== undefined) return c;
        }
        return isIndex(e['output_index']) ? byIndex.get(e['output_index']) : undefined;
      };
      const open = (oi: number, item: unknown): Call => {
        const itemId = stringField(item, 'id');
        const c: Call = { callId: stringField(item, 'call_id') ?? '', name: stringField(item, 'name') ?? '', itemId, outputIndex: oi, parser: createPartialJsonParser(), fed: '', done: false };
        byIndex.set(oi, c);
        if (itemId !== undefined && itemId !== '') byItem.set(itemId, c);
        return c;
      };

      const step = (ev: ResponseStreamEvent): void => {
        const e = asRecord(ev);
        if (e === undefined) return;
        switch (e['type']) {
          case 'response.created':
            byIndex = new Map();
            byItem = new Map();
            return;
          case 'response.output_item.added': {
            const oi = e['output_index'];
            if (!isIndex(oi) || field(e['item'], 'type') !== 'function_call') return;
            const c = open(oi, e['item']);
            const args = stringField(e['item'], 'arguments');
            if (args !== undefined) feed(c, args);
            return;
          }
          case 'response.function_call_arguments.delta': {
            const c = find(e);
            if (c !== undefined && typeof e['delta'] === 'string') feed(c, e['delta']);
            return;
          }
          case 'response.function_call_arguments.done': {
            const c = find(e);
            if (c !== undefined) finish(c, stringField(e, 'arguments'));
            return;
          }
          case 'response.output_item.done': {
            const oi = e['output_index'];
            if (!isIndex(oi) || field(e['item'], 'type') !== 'function_call') return;
            const c = byIndex.get(oi) ?? open(oi, e['item']);
            finish(c, stringField(e['item'], 'arguments'));
            return;
          }
          default:
            return;
        }
      };

      return source.subscribe({
        next(ev) {
          try {
            step(ev);
          } catch (err) {
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}
