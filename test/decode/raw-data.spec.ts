// keepRawData: each event keeps the `data:` text it was parsed from (what the gateway forwards as it came),
// and nothing else carries it: not a copy, not a provider's error report rebuilt into the reference shape.
import { fromResponsesSSE, rawDataOf } from '../../index';
import { run } from './sources';

const created = '{ "type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []} }';
const delta = '{"sequence_number":1,"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":"é\\u00e9"}';
const body = `event: response.created\ndata: ${created}\n\nevent: response.output_text.delta\ndata: ${delta}\n\n`
  + 'event: error\ndata: {"error": {"message": "overloaded", "code": "server_error"}}\n\n';

test('each event keeps its data text as sent (spacing, key order, escapes); a copy and a rebuilt error report have none', async () => {
  const { values } = await run(fromResponsesSSE(body, { keepRawData: true }));
  expect(values.map((e) => e.type)).toEqual(['response.created', 'response.output_text.delta', 'error']);
  expect(rawDataOf(values[0]!)).toBe(created);
  expect(rawDataOf(values[1]!)).toBe(delta);
  expect(JSON.parse(rawDataOf(values[1]!)!)).toEqual(values[1]);
  expect(rawDataOf(values[2]!)).toBeUndefined(); // rebuilt in the reference shape: its text is not the upstream's
  expect(rawDataOf({ ...values[1]!, delta: 'edited' })).toBeUndefined();
  expect(JSON.stringify(values[1])).not.toContain('openai-rx');
  expect(Object.keys(values[1]!)).not.toContain('rawData');
});

test('multi-line data keeps its line breaks (a relay must re-split it); without the option nothing is kept', async () => {
  const multi = 'event: response.created\ndata: {"type": "response.created", "sequence_number": 0,\ndata:  "response": {"id": "resp_2", "status": "in_progress", "output": []}}\n\n';
  const kept = await run(fromResponsesSSE(multi, { keepRawData: true }));
  expect(rawDataOf(kept.values[0]!)).toBe('{"type": "response.created", "sequence_number": 0,\n "response": {"id": "resp_2", "status": "in_progress", "output": []}}');
  const plain = await run(fromResponsesSSE(body));
  expect(plain.values.map((e) => rawDataOf(e))).toEqual([undefined, undefined, undefined]);
});
