// `npm run example -- <recipe>` (scripts/example.mjs): each recipe runs from source against the embedded
// fake provider and prints what its main() returned.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, run } from './helpers';

const recipes = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.ts')).map((f) => f.replace(/\.ts$/, ''));
const script = join(ROOT, 'scripts', 'example.mjs');
// Without the caller's key or base URL: the offline run sets its own.
const env = { PATH: process.env['PATH'] ?? '' };
const exec = (args: string[]) =>
  run(process.execPath, [script, ...args], { cwd: ROOT, env, timeout: 60_000 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );

// Started together (each is a separate process); each test reads its own.
const runs = new Map(recipes.map((r) => [r, exec([r])] as const));

const EXPECTED: Record<string, RegExp[]> = {
  'agent': [/turn 1: get_weather\(\{"city":"Paris","unit":"celsius"\}\)/, /text: 'It is 18 °C in Paris/, /POST \/v1\/responses → tools \(200\)\n  POST \/v1\/responses → answer \(200\)/],
  'ui-text-binding': [/status: 'done'/, /POST \/v1\/responses → text \(200\)/],
  'agent-loop': [/get_weather\(\{"city":"Paris","unit":"celsius"\}\)/, /It is 18 °C in Paris/, /POST \/v1\/responses → tools \(200\)\n  POST \/v1\/responses → answer \(200\)/],
  'agent-loop-websocket': [/lane: 'agent-2'/, /WS \/v1\/responses → answer \(200\)/],
  'chat-completions-proxy': [/chat\.completion\.chunk/, /Reactive streams turn each server-sent event/],
  'background-resume': [/cursor: \{ responseId: 'resp_demo_background', sequenceNumber: 7 \}/, /GET \/v1\/responses\/resp_demo_background → background \(200\)/],
  'angular-service': [/status: 'done'/, /POST \/v1\/responses → text \(200\)/],
  'structured-output': [/\| Sunday \| 10–16 °C \| rain \|/, /type: 'json_schema'/, /POST \/v1\/responses → structured \(200\)/],
};

describe('npm run example', () => {
  test('every recipe has an expectation here', () => {
    expect([...recipes].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test.each(recipes)('%s runs against the fake provider', async (recipe) => {
    const r = await runs.get(recipe)!;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(embedded transcripts; no key, no network)');
    expect(r.stdout).toContain(`examples/${recipe}.ts main() returned`);
    for (const re of EXPECTED[recipe] ?? []) expect(r.stdout).toMatch(re);
  }, 60_000);

  test('no recipe name lists them; an unknown one is a usage error; --live needs a key', async () => {
    const list = await exec([]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`recipes: ${[...recipes].sort().join(', ')}`);
    const unknown = await exec(['nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^example: no recipe named "nope"\n/);
    const live = await exec(['agent-loop', '--live']);
    expect(live.code).toBe(2);
    expect(live.stderr).toContain('--live needs OPENAI_API_KEY');
  }, 60_000);
});
