// A WebSocket `error` frame of no documented shape is still the server's error, read as the SSE decoders read
// one (lib/decode/provider-error): its lane ends with a LaneError carrying the server's code and message, not a
// `decode_error` about the frame's shape; and the key it may echo leaves masked.
import type { AddressInfo } from 'node:net';
import { lastValueFrom } from 'rxjs';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeFrame } from '../../lib/ws/frames';
import { errorOf } from '../../lib/ws/lane-end';
import { connectResponsesSocket } from '../../lib/ws/socket';
import { LaneError } from '../../lib/ws/errors';
import type { ResponsesServerEvent } from '../../lib/events/websocket';
import { expectNoFragment } from '../reliability/leaks';

const frames: Array<{ frame: object; code: string; message: string }> = [
  { frame: { type: 'error', error: 'a string' }, code: 'error', message: 'a string' },
  { frame: { type: 'error', error: { message: 'm' } }, code: 'error', message: 'm' },
  { frame: { type: 'error', error: { message: 'm', code: 'c', param: 'p', extra: [1] } }, code: 'c', message: 'm' },
  { frame: { type: 'error', error: { code: 'no_message' }, message: 'wrapper' }, code: 'no_message', message: 'wrapper' },
  { frame: { type: 'error', code: 429, message: 'slow down' }, code: '429', message: 'slow down' },
  { frame: { type: 'error', error: { message: 5, code: { x: 1 } } }, code: 'error', message: '5' },
  { frame: { type: 'error', status: 'bad', message: 'm', sequence_number: -3 }, code: 'error', message: 'm' },
  { frame: { type: 'error', error: [{ message: 'in a list', code: 'l' }] }, code: 'l', message: 'in a list' },
  { frame: { type: 'error', error: null, message: null }, code: 'error', message: 'stream error' },
];

describe('decodeFrame + errorOf: an irregular error frame', () => {
  test.each(frames)('$frame', ({ frame, code, message }) => {
    const e = decodeFrame(JSON.stringify({ ...frame, stream_id: 'lane1' }), 'strict');
    expect(e.type).toBe('error');
    expect((e as { stream_id?: string }).stream_id).toBe('lane1');
    expect(errorOf(e as ResponsesServerEvent)).toMatchObject({ code, message });
  });

  test('an invalid stream_id is not carried on (the error names no lane)', () => {
    const e = decodeFrame(JSON.stringify({ type: 'error', error: 'x', stream_id: 7 }), 'strict');
    expect(e).toMatchObject({ type: 'error', message: 'x' });
    expect(e).not.toHaveProperty('stream_id');
  });
});

describe('over a socket', () => {
  const KEY = 'sk-proj-Zq7vX2mK9pL4wR8tN3bY6cH1jF5dG0sA';

  async function withServer(reply: object, f: (url: string) => Promise<void>): Promise<void> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    wss.on('connection', (ws: WebSocket) => ws.on('message', () => ws.send(JSON.stringify(reply))));
    try {
      await f(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/v1/responses`);
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  }

  test.each([
    { type: 'error', stream_id: 'a', error: `bad key ${KEY}` },
    { type: 'error', stream_id: 'a', error: { message: `bad key ${KEY}`, code: 7 } },
    { type: 'error', stream_id: 'a', message: `bad key ${KEY}`, code: 'c', status: 'x' },
  ])('%j ends the response with a LaneError carrying the server words, the key masked', (reply) =>
    withServer(reply, async (url) => {
      const socket = connectResponsesSocket({ url, apiKey: KEY, heartbeatMs: 0 });
      try {
        const err = await lastValueFrom(socket.response({ model: 'm', input: 'x', stream_id: 'a' })).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(LaneError);
        expect((err as LaneError).code).not.toBe('decode_error');
        expect((err as LaneError).message).toContain('bad key');
        expectNoFragment('LaneError', err, KEY);
      } finally {
        socket.close();
      }
    }),
  );
});
