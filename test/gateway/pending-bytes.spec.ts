// limits.maxPendingBytes is counted in bytes: a live stream of non-ASCII text (3 bytes a character in UTF-8) ends
// with client_too_slow once the bytes waiting for the client pass the bound, not once its characters do (which
// is what a socket counts when it is handed strings). The Responses pump and the chat route run against a response
// that counts what waits in it the way Node's streams do (a string by its length, a Buffer by its bytes) and what
// it really holds (bytes).
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Subject } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { chatCompletion } from '../../gateway/chat';
import type { GatewayContext } from '../../gateway/context';
import { GatewayMetrics } from '../../gateway/metrics';
import { resolveOptions } from '../../gateway/options';
import { Producers } from '../../gateway/producers';
import { pumpSSE } from '../../gateway/sse';
import { memoryEventLog } from '../../lib/log/memory';
import { startFakeProvider } from '../../testing/index';

/** A client that reads nothing: everything written waits in the response. */
class StuckResponse extends EventEmitter {
  writableLength = 0;
  /** The bytes really held. */
  bytes = 0;
  destroyed = false;
  writableEnded = false;
  headersSent = false;
  text = '';
  writeHead(): this {
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {}
  write(chunk: string | Buffer): boolean {
    this.writableLength += chunk.length;
    this.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    this.text += chunk.toString();
    return this.writableLength < 16 * 1024;
  }
  end(chunk?: string | Buffer): this {
    if (chunk !== undefined) this.write(chunk);
    this.writableEnded = true;
    return this;
  }
}

const delta = (n: number): ResponseStreamEvent =>
  ({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: '€'.repeat(200), logprobs: [], sequence_number: n }) as unknown as ResponseStreamEvent;

it('a client that stops reading a live stream of 3-byte characters is ended once the bytes waiting pass maxPendingBytes', async () => {
  const BOUND = 100_000;
  const res = new StuckResponse();
  const source = new Subject<ResponseStreamEvent>();
  let done = false;
  pumpSSE({
    res: res as unknown as ServerResponse,
    open: () => source,
    live: { maxPendingBytes: BOUND, canReread: () => false },
    heartbeatMs: 0,
    onFailedBeforeStart: () => undefined,
    onDone: () => (done = true),
  });
  // One event a turn (each is flushed on its own), until the pump ends the stream; 3 MB at most.
  for (let n = 0; n < 5000 && !done; n++) {
    source.next(delta(n));
    await new Promise((r) => setImmediate(r));
  }
  expect(done).toBe(true);
  expect(res.writableEnded).toBe(true);
  expect(res.text).toMatch(/event: error\ndata: \{"type":"error","code":"client_too_slow",[^\n]*\n\n$/);
  // At most the bound, one event and the error frame: in bytes.
  expect(res.bytes).toBeLessThanOrEqual(BOUND + 2048);
});

it('a chat client that stops reading a stream of 3-byte characters is ended once the bytes waiting pass maxPendingBytes', async () => {
  const BOUND = 100_000;
  const provider = await startFakeProvider({ answer: Array.from({ length: 3000 }, () => '€'.repeat(100)).join(' ') });
  const options = resolveOptions({ upstream: { baseURL: provider.baseURL }, limits: { maxPendingBytes: BOUND } });
  const producers = new Producers();
  const metrics = new GatewayMetrics(() => producers.size);
  const ctx: GatewayContext = { options, log: memoryEventLog(), producers, metrics, pumps: new Set() };
  const res = new StuckResponse();
  try {
    chatCompletion(ctx, res as unknown as ServerResponse, { owner: 'o', headers: { authorization: 'Bearer sk-test-chat-bytes' } }, {
      model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }], stream: true,
    });
    for (let i = 0; i < 150_000 && !res.writableEnded; i++) await new Promise((r) => setTimeout(r, 1));
    expect(res.writableEnded).toBe(true);
    expect(res.text).not.toContain('[DONE]');
    expect(res.text).toMatch(/data: \{"error":\{[^\n]*"code":"client_too_slow"[^\n]*\n\n$/);
    expect(res.bytes).toBeLessThanOrEqual(BOUND + 2048);
  } finally {
    metrics.stop();
    await provider.close();
  }
});
