export function describeLogStreamStoreForks(_name: string, _make: unknown): void {}
