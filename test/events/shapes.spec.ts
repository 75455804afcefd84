// The skeletons kept so that parsed events keep their hidden classes across a full GC (lib/events/shapes.ts):
// one per event type (and item / part type), the same keys in the same order, nothing of the stream's content.
type Shapes = typeof import('../../lib/events/shapes');
type Decode = typeof import('../../lib/events/decode');

function fresh(): Shapes & Decode {
  let m: (Shapes & Decode) | undefined;
  jest.isolateModules(() => {
    m = { ...(require('../../lib/events/shapes') as Shapes), ...(require('../../lib/events/decode') as Decode) };
  });
  return m!;
}

const SECRET = 'sk-proj-Zr4cT0pS3cr3tV4lu3';
const delta = (n: number, d: string) => ({ type: 'response.function_call_arguments.delta', item_id: `fc_${SECRET}`, output_index: n, delta: d, obfuscation: SECRET, sequence_number: 7_000_000 + n });

describe('kept event shapes', () => {
  it('keeps one skeleton per event type, with the keys in order and no strings or numbers of the stream', () => {
    const { keepShape, keptShapes } = fresh();
    keepShape('response.function_call_arguments.delta', delta(3, `{"city":"${SECRET}"}`));
    keepShape('response.function_call_arguments.delta', { ...delta(4, 'x'), extra: SECRET });
    keepShape('response.completed', {
      type: 'response.completed', sequence_number: 9,
      response: { id: `resp_${SECRET}`, temperature: 0.73, output: [
        { type: 'function_call', id: 'fc_1', arguments: SECRET, call_id: 'c1', name: 'f' },
        { type: 'function_call', id: 'fc_2', arguments: SECRET, call_id: 'c2', name: 'g' },
        { type: 'message', id: 'msg_1', content: [{ type: 'output_text', text: SECRET, annotations: [] }] },
      ] },
    });
    const kept = keptShapes();
    expect([...kept.keys()]).toEqual(['response.function_call_arguments.delta', 'response.completed']);
    const text = JSON.stringify([...kept.values()]);
    expect(text).not.toContain(SECRET.slice(0, 8));
    expect(text).not.toMatch(/7000003|0\.73|fc_|resp_|msg_/);
    const d = kept.get('response.function_call_arguments.delta') as Record<string, unknown>;
    expect(Object.keys(d)).toEqual(['type', 'item_id', 'output_index', 'delta', 'obfuscation', 'sequence_number']);
    expect(d).toEqual({ type: '', item_id: '', output_index: 0, delta: '', obfuscation: '', sequence_number: 0 });
    // numbers keep their representation (a small integer, or not), arrays one element of each type
    const c = kept.get('response.completed') as { response: { temperature: number; output: Array<{ type: string }> } };
    expect(c.response.temperature).toBe(0.5);
    expect(c.response.output.map((o) => Object.keys(o))).toEqual([['type', 'id', 'arguments', 'call_id', 'name'], ['type', 'id', 'content']]);
  });

  it('tells events apart by the type of the item or part they carry', () => {
    const { keepShape, keptShapes } = fresh();
    for (const item of [{ type: 'reasoning', id: 'rs', summary: [] }, { type: 'function_call', id: 'fc', name: 'f' }, { type: 'function_call', id: 'fc2', name: 'g' }]) {
      keepShape('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item });
    }
    keepShape('response.content_part.added', { type: 'response.content_part.added', part: { type: 'output_text', text: '' } });
    expect([...keptShapes().keys()]).toEqual(['response.output_item.added reasoning', 'response.output_item.added function_call', 'response.content_part.added output_text']);
  });

  it('keeps at most 256 kinds, whatever a stream sends', () => {
    const { keepShape, keptShapes } = fresh();
    for (let i = 0; i < 1000; i++) keepShape(`x.${i}`, { type: `x.${i}` });
    expect(keptShapes().size).toBe(256);
  });

  it('copies a "__proto__" key as a key (no prototype change) and cuts very deep values', () => {
    const { keepShape, keptShapes } = fresh();
    let deep: unknown = { leaf: 'v' };
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    keepShape('odd', JSON.parse('{"type":"odd","__proto__":{"polluted":"yes"}}') as Record<string, unknown>);
    keepShape('deep', { type: 'deep', d: deep });
    const odd = keptShapes().get('odd') as Record<string, unknown>;
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.keys(odd)).toEqual(['type', '__proto__']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(keptShapes().get('deep')).length).toBeLessThan(200);
  });

  it('is fed by decodeTyped, once per run of one type', () => {
    const { decodeTyped, keptShapes } = fresh();
    const table = new Map();
    for (let i = 0; i < 5; i++) decodeTyped(delta(i, 'a'), table, 'strict');
    decodeTyped({ type: 'response.output_text.delta', delta: 'b' }, table, 'off');
    expect([...keptShapes().keys()]).toEqual(['response.function_call_arguments.delta', 'response.output_text.delta']);
  });
});
