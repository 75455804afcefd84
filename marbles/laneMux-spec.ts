import { from, map, Observable, Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../lib/events/websocket';
import { isLaneError, WebSocketClosedError } from '../lib/ws/errors';
import type { LaneSocket, SocketEvent } from '../lib/ws/types';
import { decodeFrame } from '../lib/ws/frames';
import { laneMux, type LaneMuxOptions, type LaneMuxOutput } from '../operators/laneMux';

// A fake socket: server events come from a hot marble; `send` records when each request left, per lane.
type Sent = [time: number, lane: string, tag: unknown];

const resp = (id: string, status = 'in_progress', extra: Record<string, unknown> = {}) => ({ id, object: 'response', status, output: [], ...extra });
const ev = (e: Record<string, unknown>) => e as unknown as SocketEvent;
const created = (lane: string, id: string) => ev({ type: 'response.created', stream_id: lane, response: resp(id), sequence_number: 0 });
const inProgress = (lane: string, id: string) => ev({ type: 'response.in_progress', stream_id: lane, response: resp(id), sequence_number: 1 });
const delta = (lane: string, d: string) => ev({ type: 'response.output_text.delta', stream_id: lane, item_id: 'm', output_index: 0, content_index: 0, delta: d, logprobs: [], sequence_number: 2 });
const completed = (lane: string, id: string) => ev({ type: 'response.completed', stream_id: lane, response: resp(id, 'completed'), sequence_number: 3 });
const steered = (lane: string, id: string) => ev({ type: 'response.incomplete', stream_id: lane, response: resp(id, 'incomplete', { incomplete_details: { reason: 'steered' } }), sequence_number: 3 });
const protocolError = (lane: string, code: string) => ev({ type: 'error', stream_id: lane, status: 400, error: { type: 'invalid_request_error', code, message: `${code} happened`, param: null } });
const create = (lane: string, tag: string, extra: Record<string, unknown> = {}) => ({ type: 'response.create', stream_id: lane, model: 'm', input: tag, ...extra }) as ResponsesClientEvent;

/** LaneErrors compared by lane and code (Error instances do not compare well by value). */
const view = (e: LaneMuxOutput) => (isLaneError(e) ? { laneError: e.code, lane: e.stream_id } : (e as ResponsesServerEvent));

function setup() {
  const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
  const sent: Sent[] = [];
  const fake = (events$: Observable<SocketEvent>): LaneSocket => ({
    events$,
    send: (e) => {
      sent.push([ts.now(), e.stream_id ?? '-', (e as { input?: unknown }).input ?? e.type]);
    },
  });
  return { ts, sent, fake };
}

function run(
  requests: string,
  reqValues: Record<string, ResponsesClientEvent>,
  server: string,
  serverValues: Record<string, SocketEvent>,
  expected: string,
  expectedValues: Record<string, unknown>,
  options: LaneMuxOptions = {},
  unsub?: string,
  serverError?: unknown,
  expectedError?: unknown,
): Sent[] {
  const { ts, sent, fake } = setup();
  ts.run(({ cold, hot, expectObservable }) => {
    const socket = fake(hot(server, serverValues, serverError));
    const out = cold(requests, reqValues).pipe(laneMux(socket, options), map(view));
    expectObservable(out, unsub).toBe(expected, expectedValues, expectedError);
  });
  return sent;
}

describe('laneMux', () => {
  test('FIFO within a lane: the second request waits for the first response’s terminal event', () => {
    const sent = run(
      '(xy|)', { x: create('a', 'a1'), y: create('a', 'a2') },
      '-c-d-e-D', { c: created('a', 'r1'), d: completed('a', 'r1'), e: created('a', 'r2'), D: completed('a', 'r2') },
      '-c-d-e-(D|)', { c: created('a', 'r1'), d: completed('a', 'r1'), e: created('a', 'r2'), D: completed('a', 'r2') },
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [3, 'a', 'a2']]);
  });

  test('different lanes run concurrently up to maxInFlight; the rest wait', () => {
    const sent = run(
      '(xyz|)', { x: create('a', 'a1'), y: create('b', 'b1'), z: create('c', 'c1') },
      '-ab--A--B-c--C', { a: created('a', 'ra'), b: created('b', 'rb'), A: completed('a', 'ra'), B: completed('b', 'rb'), c: created('c', 'rc'), C: completed('c', 'rc') },
      '-ab--A--B-c--(C|)', { a: created('a', 'ra'), b: created('b', 'rb'), A: completed('a', 'ra'), B: completed('b', 'rb'), c: created('c', 'rc'), C: completed('c', 'rc') },
      { maxInFlight: 2 },
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [0, 'b', 'b1'], [5, 'c', 'c1']]);
  });

  test('queued requests leave in arrival order when a slot frees up', () => {
    const sent = run(
      '(wxyz|)', { w: create('a', 'a1'), x: create('b', 'b1'), y: create('a', 'a2'), z: create('c', 'c1') },
      '-A-B-C-D', { A: completed('a', 'r1'), B: completed('b', 'r2'), C: completed('a', 'r3'), D: completed('c', 'r4') },
      '-A-B-C-(D|)', { A: completed('a', 'r1'), B: completed('b', 'r2'), C: completed('a', 'r3'), D: completed('c', 'r4') },
      { maxInFlight: 1 },
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [1, 'b', 'b1'], [3, 'a', 'a2'], [5, 'c', 'c1']]);
  });

  test('one lane too many is a LaneError value for that request; the other lanes carry on', () => {
    const sent = run(
      '(xyz|)', { x: create('a', 'a1'), y: create('b', 'b1'), z: create('c', 'c1') },
      '--A-B', { A: completed('a', 'ra'), B: completed('b', 'rb') },
      'L-A-(B|)', { L: { laneError: 'websocket_stream_limit_reached', lane: 'c' }, A: completed('a', 'ra'), B: completed('b', 'rb') },
      { maxLanes: 2 },
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [0, 'b', 'b1']]);
  });

  test('a protocol error ends that lane’s response only; the lane moves on to its next request', () => {
    const sent = run(
      '(xyz|)', { x: create('a', 'a1'), y: create('b', 'b1', { previous_response_id: 'resp_gone' }), z: create('b', 'b2') },
      '-E-a-A-B', { E: protocolError('b', 'previous_response_not_found'), a: delta('a', 'hi'), A: completed('a', 'ra'), B: completed('b', 'rb') },
      '-E-a-A-(B|)', { E: { laneError: 'previous_response_not_found', lane: 'b' }, a: delta('a', 'hi'), A: completed('a', 'ra'), B: completed('b', 'rb') },
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [0, 'b', 'b1'], [1, 'b', 'b2']]);
  });

  test('unsubscribing withdraws queued requests', () => {
    const sent = run(
      '(xy)', { x: create('a', 'a1'), y: create('b', 'b1') },
      '-c---A', { c: created('a', 'ra'), A: completed('a', 'ra') },
      '-c-', { c: created('a', 'ra') },
      { maxInFlight: 1 },
      '---!',
    );
    expect(sent).toEqual([[0, 'a', 'a1']]);
  });

  test('an accepted steer keeps the lane on its successor response until the successor ends', () => {
    const steer = { type: 'response.steer', stream_id: 'a', previous_response_id: 'r1', input: [] } as ResponsesClientEvent;
    const values = {
      c: created('a', 'r1'),
      s: ev({ type: 'response.steer.accepted', stream_id: 'a', steer: {} }),
      i: steered('a', 'r1'),
      n: created('a', 'r2'),
      N: completed('a', 'r2'),
    };
    const sent = run('x-s-y|', { x: create('a', 'a1'), s: steer, y: create('a', 'a2') }, '-c--s-i-n-N', values, '-c--s-i-n-N', values);
    expect(sent).toEqual([[0, 'a', 'a1'], [2, 'a', []], [10, 'a', 'a2']]);
  });

  test('pending and failed steers are surfaced on the lane and do not hold it', () => {
    const steer = (id: string) => ({ type: 'response.steer', stream_id: 'a', previous_response_id: id, input: [{ role: 'user', content: id }] }) as ResponsesClientEvent;
    const values = {
      p: ev({ type: 'response.steer.pending', stream_id: 'a', reason: 'waiting_for_required_input', required_input: [] }),
      f: ev({ type: 'response.steer.failed', stream_id: 'a', error: { code: 'previous_response_not_found' }, steer: { input: [] } }),
    };
    const sent = run('(xy|)', { x: steer('r1'), y: steer('r2') }, '-p-f', values, '-p-(f|)', values);
    expect(sent).toEqual([[0, 'a', [{ role: 'user', content: 'r1' }]], [0, 'a', [{ role: 'user', content: 'r2' }]]]);
  });

  test('a fork holds its parent lane until the fork is in progress', () => {
    const sent = run(
      'x-z-y-w|', { x: create('a', 'a1'), y: create('a', 'a2'), z: create('b', 'b1', { previous_response_id: 'r1' }), w: create('c', 'c1') },
      '-c-A----p-X-B-Y-C', {
        c: created('a', 'r1'), A: completed('a', 'r1'),
        p: inProgress('b', 'rb'), X: created('a', 'r2'), B: completed('b', 'rb'), Y: completed('a', 'r2'), C: completed('c', 'rc'),
      },
      '-c-A----p-X-B-Y-(C|)', {
        c: created('a', 'r1'), A: completed('a', 'r1'),
        p: inProgress('b', 'rb'), X: created('a', 'r2'), B: completed('b', 'rb'), Y: completed('a', 'r2'), C: completed('c', 'rc'),
      },
    );
    // a2 arrives at 4, after r1 ended, but b1 (a fork of r1, sent at 2) holds lane a until its in_progress at 8.
    expect(sent).toEqual([[0, 'a', 'a1'], [2, 'b', 'b1'], [6, 'c', 'c1'], [8, 'a', 'a2']]);
  });

  test('a dropped connection fails every unfinished request with a typed LaneError, then errors the output', () => {
    const drop = new WebSocketClosedError(1006, 'gone');
    const sent = run(
      '(xyz)', { x: create('a', 'a1'), y: create('b', 'b1'), z: create('b', 'b2') },
      '-a-#', { a: delta('a', 'x') },
      '-a-(ABC#)', { a: delta('a', 'x'), A: { laneError: 'websocket_closed', lane: 'a' }, B: { laneError: 'websocket_closed', lane: 'b' }, C: { laneError: 'websocket_closed', lane: 'b' } },
      {}, undefined, drop, drop,
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [0, 'b', 'b1']]);
  });

  test('an undecodable frame fails its lane only; the lane advances once that response ends', () => {
    const bad = decodeFrame('{"type":"response.output_text.delta","stream_id":"b","delta":', 'strict');
    const sent = run(
      '(xyz|)', { x: create('a', 'a1'), y: create('b', 'b1'), z: create('b', 'b2') },
      '-X-a-d-B-A-C', { X: bad, a: delta('a', 'ok'), d: delta('b', 'dropped'), B: completed('b', 'r1'), A: completed('a', 'ra'), C: completed('b', 'r2') },
      '-X-a-----A-(C|)', { X: { laneError: 'decode_error', lane: 'b' }, a: delta('a', 'ok'), A: completed('a', 'ra'), C: completed('b', 'r2') },
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [0, 'b', 'b1'], [7, 'b', 'b2']]);
  });

  test('errors of the requests Observable pass through', () => {
    run('x#', { x: create('a', 'a1') }, '-', {}, '-#', {}, {}, undefined);
  });

  test('the socket stays usable: the operator never sends after unsubscription and leaves events$ alone', () => {
    const events = new Subject<SocketEvent>();
    const sent: string[] = [];
    const socket: LaneSocket = { events$: events, send: (e) => void sent.push(e.stream_id ?? '-') };
    const out: unknown[] = [];
    const sub = new Subject<ResponsesClientEvent>();
    const s = sub.pipe(laneMux(socket, { maxInFlight: 1 })).subscribe((e) => out.push(e));
    sub.next(create('a', 'a1'));
    sub.next(create('b', 'b1'));
    expect(events.observed).toBe(true);
    s.unsubscribe();
    events.next(completed('a', 'ra'));
    expect(sent).toEqual(['a']);
    expect(out).toEqual([]);
    expect(events.observed).toBe(false);
    expect(events.closed).toBe(false);
  });
});

describe('laneMux: a lane belongs to its response until that response really ends', () => {
  const values = {
    c: created('a', 'r1'), C: completed('a', 'r1'),
    d: created('a', 'r2'), D: completed('a', 'r2'),
    e: created('a', 'r3'), E: completed('a', 'r3'),
  };

  test('a duplicated terminal frame does not complete the next request on the lane', () => {
    const sent = run(
      '(xyz|)', { x: create('a', 'a1'), y: create('a', 'a2'), z: create('a', 'a3') },
      '-c-C-C-d-D-e-E', values,
      '-c-C---d-D-e-(E|)', values,
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [3, 'a', 'a2'], [9, 'a', 'a3']]);
  });

  test('a duplicated terminal frame arriving after the lane went idle does not complete a later request', () => {
    const sent = run(
      'x-----y|', { x: create('a', 'a1'), y: create('a', 'a2') },
      '-c-C----C-d-D', values,
      '-c-C------d-(D|)', values,
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [6, 'a', 'a2']]);
  });

  test('a terminal event with another response’s id does not end the lane’s response', () => {
    const sent = run(
      '(xy|)', { x: create('a', 'a1'), y: create('a', 'a2') },
      '-c-X-C-d-D', { ...values, X: completed('a', 'r9') },
      '-c---C-d-(D|)', values,
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [5, 'a', 'a2']]);
  });

  test('unsubscribing mid-response: a new laneMux on the same socket waits for that response’s terminal and never sees it', () => {
    const { ts, sent, fake } = setup();
    ts.run(({ cold, hot, expectObservable }) => {
      const socket = fake(hot('-cd--C-n-N', { c: created('a', 'r1'), d: delta('a', 'x'), C: completed('a', 'r1'), n: created('a', 'r2'), N: completed('a', 'r2') }));
      expectObservable(cold('x', { x: create('a', 'a1') }).pipe(laneMux(socket), map(view)), '^--!').toBe('-cd', { c: created('a', 'r1'), d: delta('a', 'x') });
      expectObservable(hot('----y|', { y: create('a', 'a2') }).pipe(laneMux(socket), map(view))).toBe('-------n-(N|)', { n: created('a', 'r2'), N: completed('a', 'r2') });
    });
    expect(sent).toEqual([[0, 'a', 'a1'], [5, 'a', 'a2']]);
  });

  test('two laneMux on one socket together keep at most 16 responses in flight', () => {
    const { ts, sent, fake } = setup();
    const lanes = Array.from({ length: 16 }, (_, i) => `a${i}`);
    ts.run(({ cold, hot, expectObservable }) => {
      const socket = fake(hot('-----A---b-B', { A: completed('a0', 'ra0'), b: created('b', 'rb'), B: completed('b', 'rb') }));
      cold('(x|)', { x: 0 }).pipe(() => from(lanes.map((l) => create(l, l))), laneMux(socket)).subscribe();
      expectObservable(cold('--(y|)', { y: create('b', 'b1') }).pipe(laneMux(socket), map(view))).toBe('---------b-(B|)', { b: created('b', 'rb'), B: completed('b', 'rb') });
    });
    expect(sent.filter(([, lane]) => lane === 'b')).toEqual([[5, 'b', 'b1']]);
    expect(sent).toHaveLength(17);
  });
});

describe('laneMux: a terminal frame that cannot be decoded', () => {
  test('names no lane: every running lane waits at most terminalTimeoutMs, then a LaneError and the queue moves on', () => {
    const bad = decodeFrame('{"type":"response.completed","response":{"id":"rb1"', 'strict');
    const sent = run(
      '(xyz|)', { x: create('a', 'a1'), y: create('b', 'b1'), z: create('b', 'b2') },
      `-p-q-G-A${'-'.repeat(9)}d-D`, { p: created('b', 'rb1'), q: created('a', 'ra'), G: bad, A: completed('a', 'ra'), d: created('b', 'rb2'), D: completed('b', 'rb2') },
      '-p-q-L-A-------T-d-(D|)', {
        p: created('b', 'rb1'), q: created('a', 'ra'), L: { laneError: 'decode_error', lane: undefined }, A: completed('a', 'ra'),
        T: { laneError: 'terminal_timeout', lane: 'b' }, d: created('b', 'rb2'), D: completed('b', 'rb2'),
      },
      { terminalTimeoutMs: 10 },
    );
    expect(sent).toEqual([[0, 'a', 'a1'], [0, 'b', 'b1'], [15, 'b', 'b2']]);
  });

  test('names its lane but no type: the request fails at once, the lane waits terminalTimeoutMs for more of it', () => {
    const bad = decodeFrame('{"stream_id":"b","response":', 'strict');
    const sent = run(
      '(yz|)', { y: create('b', 'b1'), z: create('b', 'b2') },
      '-p-U', { p: created('b', 'rb1'), U: bad },
      '-p-L', { p: created('b', 'rb1'), L: { laneError: 'decode_error', lane: 'b' } },
      { terminalTimeoutMs: 10 },
    );
    expect(sent).toEqual([[0, 'b', 'b1'], [13, 'b', 'b2']]);
  });

  test('each frame of the broken response restarts the wait; what comes after it is dropped until the next response is created', () => {
    const bad = decodeFrame('{"stream_id":"b","response":', 'strict');
    const sent = run(
      '(yz|)', { y: create('b', 'b1'), z: create('b', 'b2') },
      `-p-U-x${'-'.repeat(10)}x-X-d-D`, { p: created('b', 'rb1'), U: bad, x: delta('b', 'late'), X: completed('b', 'rb1'), d: created('b', 'rb2'), D: completed('b', 'rb2') },
      `-p-L${'-'.repeat(16)}d-(D|)`, { p: created('b', 'rb1'), L: { laneError: 'decode_error', lane: 'b' }, d: created('b', 'rb2'), D: completed('b', 'rb2') },
      { terminalTimeoutMs: 10 },
    );
    // the delta at 5 restarts the wait, which ends at 15; the late delta (16) and terminal (18) of rb1 are not b2's
    expect(sent).toEqual([[0, 'b', 'b1'], [15, 'b', 'b2']]);
  });
});
