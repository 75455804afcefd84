import { accumulateText } from '../operators/accumulateText';
import { outputText } from '../operators/outputText';
import * as ev from '../test/operators/events';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const snap = (text: string, delta: string, done = false, itemId = 'm', outputIndex = 0) =>
  ({ kind: 'output_text', itemId, outputIndex, contentIndex: 0, delta, text, done });

describe('accumulateText marbles', () => {
  test('one snapshot per delta, the final one on .done, completion passes through', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-d-|', { a: ev.textDelta('m', 0, 0, 'He'), b: ev.textDelta('m', 0, 0, 'llo'), c: ev.textDone('m', 0, 0, 'Hello!'), d: ev.completed() });
      expectObservable(src.pipe(accumulateText())).toBe('-x-y-z---|', { x: snap('He', 'He'), y: snap('Hello', 'llo'), z: snap('Hello!', '', true) });
    });
  });

  test('a missing .done: the final snapshot comes with the closed item', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a--i-|', { a: ev.textDelta('m', 0, 0, 'Hi'), i: ev.itemDone(0, ev.msg('m', [ev.textPart('Hi.')], 'completed')) });
      expectObservable(src.pipe(accumulateText())).toBe('-x--z-|', { x: snap('Hi', 'Hi'), z: snap('Hi.', '', true) });
    });
  });

  test('a cut-off stream: the final snapshot comes with completion', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a---|', { a: ev.textDelta('m', 0, 0, 'Hi') });
      expectObservable(src.pipe(accumulateText())).toBe('-x---(z|)', { x: snap('Hi', 'Hi'), z: snap('Hi', '', true) });
    });
  });

  test('rotated item ids and interleaved items', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-|', { a: ev.textDelta('a1', 0, 0, 'x'), b: ev.textDelta('b1', 1, 0, 'y'), c: ev.textDelta('a2', 0, 0, 'z') });
      expectObservable(src.pipe(accumulateText())).toBe('-x-y-z-(pq|)', {
        x: snap('x', 'x', false, 'a1'), y: snap('y', 'y', false, 'b1', 1), z: snap('xz', 'z', false, 'a2'),
        p: snap('xz', '', true, 'a2'), q: snap('y', '', true, 'b1', 1),
      });
    });
  });

  test('another response: the open parts of the one before close first, then the new parts start afresh at the same indexes', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-n-b-|', { a: ev.textDelta('m', 0, 0, 'Hi'), n: ev.created('resp_2'), b: ev.textDelta('k', 0, 0, 'Yo') });
      expectObservable(src.pipe(accumulateText())).toBe('-x-y-z-(w|)', { x: snap('Hi', 'Hi'), y: snap('Hi', '', true), z: snap('Yo', 'Yo', false, 'k'), w: snap('Yo', '', true, 'k') });
    });
  });

  test('a part that opens with its text: that text is a snapshot, the deltas extend it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-p-d-|', { p: ev.partAdded('m', 0, 0, ev.textPart('He')), d: ev.textDelta('m', 0, 0, 'llo') });
      expectObservable(src.pipe(accumulateText())).toBe('-x-y-(z|)', { x: snap('He', 'He'), y: snap('Hello', 'llo'), z: snap('Hello', '', true) });
    });
  });

  test('an error passes through untouched', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new Error('cut');
      const src = cold('-a-#', { a: ev.textDelta('m', 0, 0, 'Hi') }, err);
      expectObservable(src.pipe(accumulateText())).toBe('-x-#', { x: snap('Hi', 'Hi') }, err);
    });
  });

  test('unsubscribing unsubscribes from the source', () => {
    scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const src = hot('-a-b-c-|', { a: ev.textDelta('m', 0, 0, 'a'), b: ev.textDelta('m', 0, 0, 'b'), c: ev.textDelta('m', 0, 0, 'c') });
      expectObservable(src.pipe(accumulateText()), '^---!').toBe('-x-y', { x: snap('a', 'a'), y: snap('ab', 'b') });
      expectSubscriptions(src.subscriptions).toBe('^---!');
    });
  });

  test('outputText: the growing answer as a string', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-|', { a: ev.textDelta('m', 0, 0, 'He'), b: ev.textDelta('m', 0, 0, 'llo'), c: ev.completed() });
      expectObservable(src.pipe(outputText())).toBe('-x-y---|', { x: 'He', y: 'Hello' });
    });
  });

  test('a final output that leaves out and reorders items: the finals come at the terminal event, one per part, no phantom', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const answer = ev.msg('m', [ev.textPart('Hi!')], 'completed');
      const src = cold('-r-a-d-z-|', {
        r: ev.itemAdded(0, { id: 'rs', type: 'reasoning', summary: [] }), a: ev.itemAdded(1, ev.msg('m')), d: ev.textDelta('m', 1, 0, 'Hi'),
        z: ev.completed([answer, ev.fc('f', 'c', 'go', '{}', 'completed')]),
      });
      expectObservable(src.pipe(accumulateText())).toBe('-----x-y-|', { x: snap('Hi', 'Hi', false, 'm', 1), y: snap('Hi!', '', true, 'm', 1) });
      expectObservable(src.pipe(outputText())).toBe('-----x-y-|', { x: 'Hi', y: 'Hi!' });
    });
  });

  test('a delta aimed at an item of another type emits nothing', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-f-t-d-|', { f: ev.itemAdded(0, ev.fc('f', 'c', 'go')), t: ev.textDelta('f', 0, 0, 'x'), d: ev.textDelta('m', 1, 0, 'Hi') });
      expectObservable(src.pipe(accumulateText())).toBe('-----x-(y|)', { x: snap('Hi', 'Hi', false, 'm', 1), y: snap('Hi', '', true, 'm', 1) });
    });
  });
});
