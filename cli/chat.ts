// `replay --to chat`: toChatChunks, keeping custom tool calls as Chat Completions `type: "custom"` calls.
import { defer, map, type Observable, type OperatorFunction } from 'rxjs';
import { toChatChunks, type ChatCompletionChunk, type ResponseStreamEvent } from '../lib/index.js';

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `toChatChunks({ includeUsage: true })`, except that `custom_tool_call` items (which it would skip) come out
 * as chat tool calls of `type: "custom"` with `custom: { name, input }`, as a chat provider streams them:
 * they go through as function calls, and their chunks are renamed on the way out.
 */
export function toChatKeepingCustomTools(): OperatorFunction<ResponseStreamEvent, ChatCompletionChunk> {
  return (events$: Observable<ResponseStreamEvent>) =>
    defer(() => {
      const customCallIds = new Set<string>();
      const customIndexes = new Set<number>();
      const asFunction = (item: unknown): unknown => {
        if (!isRec(item) || item['type'] !== 'custom_tool_call') return item;
        if (typeof item['call_id'] === 'string') customCallIds.add(item['call_id']);
        const { input, ...rest } = item;
        return { ...rest, type: 'function_call', arguments: typeof input === 'string' ? input : '' };
      };
      const rewrite = (e: ResponseStreamEvent): ResponseStreamEvent => {
        const r = e as unknown as Rec;
        switch (e.type) {
          case 'response.output_item.added':
          case 'response.output_item.done':
            return { ...r, item: asFunction(r['item']) } as unknown as ResponseStreamEvent;
          case 'response.custom_tool_call_input.delta':
            return { ...r, type: 'response.function_call_arguments.delta' } as unknown as ResponseStreamEvent;
          case 'response.custom_tool_call_input.done': {
            const { input, ...rest } = r;
            return { ...rest, type: 'response.function_call_arguments.done', arguments: input } as unknown as ResponseStreamEvent;
          }
          default: {
            const response = r['response'];
            if (isRec(response) && Array.isArray(response['output'])) {
              return { ...r, response: { ...response, output: response['output'].map(asFunction) } } as unknown as ResponseStreamEvent;
            }
            return e;
          }
        }
      };
      const renameCalls = (chunk: ChatCompletionChunk): ChatCompletionChunk => {
        if (customCallIds.size === 0) return chunk;
        const choices = (chunk.choices as unknown[]).map((choice) => {
          if (!isRec(choice) || !isRec(choice['delta']) || !Array.isArray(choice['delta']['tool_calls'])) return choice;
          const calls = (choice['delta']['tool_calls'] as unknown[]).map((call) => {
            if (!isRec(call) || typeof call['index'] !== 'number') return call;
            if (typeof call['id'] === 'string' && customCallIds.has(call['id'])) customIndexes.add(call['index']);
            if (!customIndexes.has(call['index'])) return call;
            const fn = isRec(call['function']) ? call['function'] : {};
            const custom = { ...(typeof fn['name'] === 'string' ? { name: fn['name'] } : {}), input: typeof fn['arguments'] === 'string' ? fn['arguments'] : '' };
            return { index: call['index'], ...(call['id'] !== undefined ? { id: call['id'], type: 'custom' } : {}), custom };
          });
          return { ...choice, delta: { ...choice['delta'], tool_calls: calls } };
        });
        return { ...chunk, choices } as unknown as ChatCompletionChunk;
      };
      return events$.pipe(map(rewrite), toChatChunks({ includeUsage: true }), map(renameCalls));
    });
}
