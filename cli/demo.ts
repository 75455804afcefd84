import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, tap } from 'rxjs';
import { streamResponse } from '../lib/index.js';
import { ofType } from '../operators/index.js';
import { demoTranscript } from './transcript.js';

export interface DemoOptions {
  readonly out: NodeJS.WritableStream;
  /** Milliseconds between the chunks the loopback server writes. */
  readonly chunkDelay: number;
}

/** Serves the embedded transcript on 127.0.0.1 in small delayed chunks. */
function serve(transcript: string, chunkDelay: number): Promise<Server> {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_demo' });
    let offset = 0;
    const step = (): void => {
      if (offset >= transcript.length) return void res.end();
      res.write(transcript.slice(offset, (offset += 97)));
      setTimeout(step, chunkDelay);
    };
    step();
    req.on('close', () => (offset = transcript.length));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** The offline demo: a real HTTP stream over loopback, decoded and rendered live. */
export async function runDemo({ out, chunkDelay }: DemoOptions): Promise<void> {
  const transcript = demoTranscript();
  const server = await serve(transcript, chunkDelay);
  const { port } = server.address() as AddressInfo;
  const started = Date.now();
  let events = 0;
  try {
    out.write(`openai-rx demo: streaming an embedded response from http://127.0.0.1:${port}/v1 (offline, no API key)\n\n`);
    const stream = streamResponse({ model: 'demo-model', input: 'Why reactive streams?' }, { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'demo' });
    await lastValueFrom(
      stream.pipe(
        tap(() => events++),
        ofType('response.output_text.delta', 'response.completed'),
        tap((e) => {
          if (e.type === 'response.output_text.delta') out.write(e.delta);
        }),
      ),
    );
    out.write(`\n\n${events} events, ${Buffer.byteLength(transcript)} bytes in ${Date.now() - started} ms\n`);
  } finally {
    server.close();
  }
}
