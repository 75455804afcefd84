// Every ```ts example in the transports' (and openai-rx/testing's) doc comments is in doc-examples.ts word for word, where
// `npm run typecheck` compiles it: an example that stops compiling, or that changes without its copy, fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const FILES = ['lib/http/transports.ts', 'lib/decode/responses-sse.ts', 'lib/decode/chat-sse.ts', 'lib/ws/socket.ts', 'lib/ws/response.ts', 'lib/schema/json-schema-format.ts', 'testing/index.ts'];

/** The ```ts blocks of a file's doc comments, without the comments' ` * ` margins. */
function examplesOf(source: string): string[] {
  const blocks: string[] = [];
  for (const comment of source.match(/\/\*\*[\s\S]*?\*\//g) ?? []) {
    const text = comment.split('\n').slice(1, -1).map((l) => l.replace(/^\s*\* ?/, '')).join('\n');
    for (const m of text.matchAll(/```ts\n([\s\S]*?)\n```/g)) blocks.push(m[1]!);
  }
  return blocks;
}

const copies = readFileSync(join(__dirname, 'doc-examples.ts'), 'utf8');

test.each(FILES)('the examples of %s are type-checked copies', (file) => {
  const examples = examplesOf(readFileSync(join(root, file), 'utf8'));
  expect(examples.length).toBeGreaterThan(0);
  expect(examples.filter((e) => !copies.includes(e))).toEqual([]);
});
