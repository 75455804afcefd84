// A provider's error report in an irregular shape is read for its words, and those words leave masked as every
// error does today: the request's key (whole or cut) and any credential shape (`sk-…`, `Bearer …`), in the
// emitted `error` event and in the ResponseStreamError, on both HTTP surfaces.
import { createServer } from 'node:http';
import { streamChatCompletion, streamResponse } from '../../index.js';
import { expectNoFragment, valuesAndError } from '../reliability/leaks';
import { close, listen } from '../reliability/loopback';

const KEY = 'sk-proj-Zq7vX2mK9pL4wR8tN3bY6cH1jF5dG0sA';
const OTHER = 'sk-live-OTHERKEY99887766554433';

async function answering<T>(body: string, f: (baseURL: string) => Promise<T>): Promise<T> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  });
  try {
    return await f(await listen(server));
  } finally {
    await close(server);
  }
}

const payloads = [
  `{"message":"bad key ${KEY}","code":"invalid_api_key"}`,
  `{"error":"bad key ${KEY}"}`,
  `{"error":{"message":"bad key ${KEY}","param":"${KEY}"}}`,
  `{"type":"error","message":"bad key ${KEY}","code":"${KEY}","sequence_number":-1}`,
  `[{"error":{"message":"bad key ${KEY}"}}]`,
  `"bad key ${KEY}"`,
  `bad key ${KEY} (plain text)`,
  `{"message":"bad key, another one ${OTHER}"}`,
];

describe.each([
  ['Responses', (baseURL: string) => streamResponse({ model: 'm' }, { baseURL, apiKey: KEY })],
  ['Chat Completions', (baseURL: string) => streamChatCompletion({ model: 'm', messages: [] }, { baseURL, apiKey: KEY })],
] as const)('%s over HTTP', (_surface, stream) => {
  test.each(payloads)('event: error + %s', (data) =>
    answering(`event: error\ndata: ${data}\n\n`, async (baseURL) => {
      const { values, error } = await valuesAndError<unknown>(stream(baseURL));
      expect(error).toMatchObject({ name: 'ResponseStreamError', eventType: 'error' });
      expect((error as Error).message).toContain('bad key');
      for (const secret of [KEY, OTHER]) {
        expectNoFragment('error event', values, secret);
        expectNoFragment('ResponseStreamError', error, secret);
      }
    }),
  );
});
