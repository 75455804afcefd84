import { redactThenCut, type Secrets } from '../lib/redact.js';

// What the model (and `agent.tool_call.failed`) is told of a failure, and what a thrown value says, read without
// trusting it: a tool, a handler or a validator may throw anything (a Proxy whose every trap throws, an Error whose
// `message` getter throws, a Symbol, null, an object whose `toString` throws), and reading it must never throw in
// turn, or the failure would end the whole run instead of one call. Nothing is converted with String() or a
// template (that calls `toString` / `Symbol.toPrimitive`): only strings are taken.

/** `read()`, or `undefined` when it throws. */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Whether `e` is an instance of `C`; `false` when asking throws (a Proxy's `getPrototypeOf` trap). */
export function isInstance(e: unknown, C: abstract new (...args: never[]) => unknown): boolean {
  return attempt(() => e instanceof C) === true;
}

/**
 * The text a thrown value carries, unmasked and uncut (the caller masks it for whoever reads it): a string as it
 * is, else its `message` when that is a non-empty string, else an Error's own name (`TypeError`) when it has
 * one; `undefined` when it says nothing readable. Never throws.
 */
export function thrownText(e: unknown): string | undefined {
  if (typeof e === 'string') return e === '' ? undefined : e;
  if ((typeof e !== 'object' && typeof e !== 'function') || e === null) return undefined;
  const message = attempt(() => (e as { message?: unknown }).message);
  if (typeof message === 'string' && message !== '') return message;
  if (!isInstance(e, Error)) return undefined;
  const name = attempt(() => (e as Error).name);
  return typeof name === 'string' && name !== '' && name !== 'Error' ? name : undefined;
}

const MAX_MESSAGE = 500;

/** A line of a stack trace (V8 `    at f (file:1:2)`, Firefox / Safari `f@file:1:2`). */
const STACK_FRAME = /^\s+at\s|^\s*[\w$.<>]*@\S+:\d+(?::\d+)?\s*$/;

/** Text for the model: stack frames (a wrapped error's stack folded into a message) left out, secrets masked, cut. */
export function forModel(text: string, secrets: Secrets): string {
  const lines = text.split('\n');
  const frame = lines.findIndex((l) => STACK_FRAME.test(l));
  const kept = (frame < 0 ? lines : lines.slice(0, frame)).join('\n').trimEnd();
  return redactThenCut(kept === '' ? 'unknown error' : kept, MAX_MESSAGE, secrets);
}

/** What a thrown value says, masked and cut: never a stack. An Error without a message says its name. Never throws. */
export function messageOf(e: unknown, secrets: Secrets): string {
  const text = thrownText(e);
  return text === undefined ? 'unknown error' : forModel(text, secrets);
}
