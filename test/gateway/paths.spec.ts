// The request target as the route table sees it (gateway/paths.ts) and the table itself (routes.ts): one
// reading per path, and the upstream path rebuilt from the segments that were checked.
import { InvalidOptionError } from '../../lib/errors';
import { GatewayHttpError } from '../../gateway/errors';
import { normaliseTarget } from '../../gateway/paths';
import { matchRoute, parsePassThrough } from '../../gateway/routes';

const segs = (raw: string): readonly string[] => normaliseTarget(raw).segments;
const refused = (raw: string): unknown => {
  try {
    normaliseTarget(raw);
    return 'accepted';
  } catch (e) {
    return e instanceof GatewayHttpError ? [e.status, e.body.error.code] : e;
  }
};

describe('normaliseTarget', () => {
  it.each([
    ['/v1/responses/resp_1', ['v1', 'responses', 'resp_1']],
    ['/v1//responses/resp_1', ['v1', 'responses', 'resp_1']],
    ['/v1/responses//resp_1', ['v1', 'responses', 'resp_1']],
    ['//v1/responses/resp_1/', ['v1', 'responses', 'resp_1']],
    ['/v1/./responses/resp_1', ['v1', 'responses', 'resp_1']],
    ['/v1/x/../responses/resp_1', ['v1', 'responses', 'resp_1']],
    ['/v1\\responses\\resp_1', ['v1', 'responses', 'resp_1']],
    ['/v1/%72esponses/resp_1', ['v1', 'responses', 'resp_1']],
    ['/v1/responses/resp_1?stream=true&x=/../y', ['v1', 'responses', 'resp_1']],
    ['/healthz', ['healthz']],
  ])('%s reads as %j', (raw, want) => {
    expect(segs(raw)).toEqual(want);
  });

  it.each([
    '/v1/responses/resp_1%2Fcancel',
    '/v1/responses/resp_1%2fcancel',
    '/v1/responses/resp_1%5Ccancel',
    '/v1/responses/%2E%2E/files',
    '/v1/responses/%2e/resp_1',
    '/v1/responses/.%2E/files',
    '/v1/responses/resp_1%00',
    '/v1/responses/resp_1%0A',
    '/v1/responses/resp_%252Fx',
    '/v1/responses/%E0%A4%A',
    '/v1/..',
    '/v1/../healthz',
    '/../v1/responses',
    '/v1/responses/../../../files',
    '/v1/responses/resp_1#x',
    'http://evil.example/v1/responses',
    '*',
  ])('%s cannot be read one way only: 404 unknown_url', (raw) => {
    expect(refused(raw)).toEqual([404, 'unknown_url']);
  });

  it('keeps the query as sent, parsed the same way', () => {
    const t = normaliseTarget('/v1/responses/resp_1?stream=true&starting_after=3');
    expect(t.search).toBe('?stream=true&starting_after=3');
    expect(t.query.get('starting_after')).toBe('3');
  });
});

describe('matchRoute', () => {
  const match = (method: string, raw: string, pass: string[] = []) => matchRoute(method, normaliseTarget(raw), parsePassThrough(pass));
  const unknown = (method: string, raw: string, pass: string[] = []): unknown => {
    try {
      return match(method, raw, pass).name;
    } catch (e) {
      return e instanceof GatewayHttpError ? [e.status, e.body.error.code] : e;
    }
  };

  it('names the route by its pattern and forwards the path rebuilt from the segments checked', () => {
    const r = match('GET', '/v1//responses/./resp_1/?include[]=x');
    expect(r).toMatchObject({ name: 'responses.retrieve', pattern: 'GET /v1/responses/{response_id}', params: { response_id: 'resp_1' } });
    expect(r.owned).toEqual([{ kind: 'response', id: 'resp_1', param: 'response_id' }]);
    expect(r.upstreamPath).toBe('/responses/resp_1?include[]=x');
    expect(match('GET', '/v1/conversations/conv_1/items/msg_1').owned).toEqual([{ kind: 'conversation', id: 'conv_1', param: 'conversation_id' }]);
    expect(match('GET', '/v1/models/ft%3Agpt-4o%3Aorg').upstreamPath).toBe('/models/ft%3Agpt-4o%3Aorg');
  });

  it.each([
    ['GET', '/v1/files'],
    ['POST', '/v1/files'],
    ['GET', '/v1/vector_stores/vs_1'],
    ['POST', '/v1/embeddings'],
    ['PUT', '/v1/responses/resp_1'],
    ['PATCH', '/v1/conversations/conv_1'],
    ['GET', '/v1/chat/completions'],
    ['GET', '/v1/chat/completions/chatcmpl_1'],
    ['DELETE', '/v1/models/ft:x'],
    ['GET', '/v1/responses/resp_1/cancel'],
    ['GET', '/v1/responses/resp_1/input_items/x'],
    ['GET', '/v1'],
    ['GET', '/admin'],
    ['OPTIONS', '/v1/responses'],
  ])('%s %s is not a route of the gateway: 404 unknown_url', (method, raw) => {
    expect(unknown(method, raw)).toEqual([404, 'unknown_url']);
  });

  it('passes through only what a pattern names, and never a path under /v1/responses or /v1/conversations', () => {
    const pass = ['GET /v1/files', 'GET /v1/vector_stores/*', '* /v1/batches/**', 'GET /v1/*'];
    expect(match('GET', '/v1/files', pass)).toMatchObject({ name: 'passThrough', pattern: 'GET /v1/files', upstreamPath: '/files' });
    expect(unknown('POST', '/v1/files', pass.slice(0, 3))).toEqual([404, 'unknown_url']);
    expect(match('GET', '/v1/vector_stores/vs_1', pass).pattern).toBe('GET /v1/vector_stores/*');
    expect(unknown('GET', '/v1/vector_stores/vs_1/files', pass.slice(0, 3))).toEqual([404, 'unknown_url']);
    expect(match('DELETE', '/v1/batches/b_1/x', pass).pattern).toBe('* /v1/batches/**');
    expect(unknown('POST', '/v1/batches', pass.slice(0, 3))).toEqual([404, 'unknown_url']);
    // `GET /v1/*` does not reach the gateway's own resources in another way than its own routes.
    expect(unknown('GET', '/v1/responses', pass)).toEqual([404, 'unknown_url']);
    expect(unknown('GET', '/v1/conversations', pass)).toEqual([404, 'unknown_url']);
    expect(unknown('PUT', '/v1/responses/resp_1', ['* /v1/**'])).toEqual([404, 'unknown_url']);
  });
});

describe('parsePassThrough', () => {
  it.each([
    [['GET /v1/responses/*']],
    [['* /v1/conversations/**']],
    [['GET /files']],
    [['GET /v1/files/']],
    [['GET /v1//files']],
    [['GET /v1/files/../responses']],
    [['get /v1/files']],
    [['FETCH /v1/files']],
    [['GET /v1/**/x']],
    [['GET /v1/fi%2Fles']],
    [['GET /v1']],
    [[42]],
    ['GET /v1/files'],
  ])('refuses %j with an InvalidOptionError', (given) => {
    expect(() => parsePassThrough(given as never)).toThrow(InvalidOptionError);
  });
});
