import { describeFromDurableStream } from './from-durable-stream-suite';
import { referenceServer } from './from-durable-stream-helpers';

// fromDurableStream against the protocol authors' reference server (@durable-streams/server).
describe('fromDurableStream against the reference server', () => {
  describeFromDurableStream(() => referenceServer());
});
