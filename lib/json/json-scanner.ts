import { JsonTextError } from '../errors.js';

// The character level of the incremental JSON parser: a state machine over the text's characters that reads
// each once, whatever the chunking, and tells a sink what it found (split from the value builder as
// eventsource-parser splits its line reader from its event builder). It only knows the grammar: which
// container is open, whether a string is a key, where a number ends; the sink decides what is shown.

/** What the scanner reports, in text order. */
export interface JsonSink {
  open(array: boolean): void;
  close(): void;
  /** A complete object key; its value follows. */
  key(key: string): void;
  stringStart(): void;
  /** More of the string value: never half an escape, never a high surrogate whose low half may follow. */
  stringAppend(text: string): void;
  stringEnd(): void;
  /** A complete number, `true`, `false` or `null`. */
  scalar(value: number | boolean | null): void;
}

const enum S { Value, ValueOrCloseArray, KeyOrCloseObject, Key, Colon, AfterValue, String, Escape, Unicode, Number, Literal, Done }
// Number states: after '-', a leading 0, integer digits, '.', fraction digits, 'e', the exponent's sign, its digits.
const enum N { Minus, Zero, Int, Dot, Frac, E, ESign, Exp }

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const LITERALS: Readonly<Record<string, readonly [string, boolean | null]>> = { t: ['true', true], f: ['false', false], n: ['null', null] };

const isWhitespace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

export class JsonScanner {
  private state = S.Value;
  /** The open containers, innermost last: true for an array. */
  private readonly arrays: boolean[] = [];
  private inKey = false;
  private keyText = '';
  /** A high surrogate held back until its low half (or the string's end) shows it is whole. */
  private held = '';
  private unicodeDigits = 0;
  private unicodeCode = 0;
  private numberState = N.Minus;
  private numberText = '';
  private literal = '';
  private literalIndex = 0;
  private literalValue: boolean | null = null;
  /** Characters read before the current chunk. */
  private offset = 0;

  constructor(
    private readonly sink: JsonSink,
    private readonly maxDepth: number,
  ) {}

  write(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case S.String: {
          // The fast path: a run of plain characters is one slice.
          let j = i;
          let d = c;
          while (d !== 34 && d !== 92 && d >= 32) {
            if (++j === n) break;
            d = chunk.charCodeAt(j);
          }
          if (j > i) this.text(chunk.slice(i, j));
          if (j === n) return this.advance(n);
          if (d === 34) this.endString();
          else if (d === 92) this.state = S.Escape;
          else throw this.error('a control character must be escaped in a string', j);
          i = j + 1;
          continue;
        }
        case S.Escape: {
          const ch = chunk[i]!;
          if (ch === 'u') {
            this.state = S.Unicode;
            this.unicodeDigits = 0;
            this.unicodeCode = 0;
          } else {
            const escaped = ESCAPES[ch];
            if (escaped === undefined) throw this.error('expected an escape (one of " \\ / b f n r t u) after \\', i);
            this.text(escaped);
            this.state = S.String;
          }
          break;
        }
        case S.Unicode: {
          const v = hexValue(c);
          if (v < 0) throw this.error('expected a hex digit in a \\u escape', i);
          this.unicodeCode = this.unicodeCode * 16 + v;
          if (++this.unicodeDigits === 4) {
            this.text(String.fromCharCode(this.unicodeCode));
            this.state = S.String;
          }
          break;
        }
        case S.Number:
          if (!this.numberChar(c, i)) continue; // the character after the number is read again
          break;
        case S.Literal:
          if (c !== this.literal.charCodeAt(this.literalIndex)) throw this.error(`expected ${JSON.stringify(this.literal)}`, i);
          if (++this.literalIndex === this.literal.length) this.valueDone(this.literalValue);
          break;
        default:
          if (!isWhitespace(c)) this.structural(c, i);
      }
      i++;
    }
    this.advance(n);
  }

  /** The end of the text: a number at the end is complete; anything else unfinished is an error. */
  end(): void {
    if (this.state === S.Number && this.numberState !== N.Minus && this.numberState !== N.Dot && this.numberState !== N.E && this.numberState !== N.ESign) {
      this.valueDone(Number(this.numberText));
    }
    if (this.state !== S.Done) throw this.error(`unexpected end of the text, ${this.expected()}`, 0);
  }

  /** A character between tokens (not whitespace). */
  private structural(c: number, i: number): void {
    const state = this.state;
    if (state === S.Value || state === S.ValueOrCloseArray) {
      if (c === 93 && state === S.ValueOrCloseArray) return this.close();
      return this.startValue(c, i);
    }
    if (state === S.KeyOrCloseObject || state === S.Key) {
      if (c === 34) {
        this.inKey = true;
        this.state = S.String;
        return;
      }
      if (c === 125 && state === S.KeyOrCloseObject) return this.close();
    } else if (state === S.Colon) {
      if (c === 58) {
        this.state = S.Value;
        return;
      }
    } else if (state === S.AfterValue) {
      const array = this.arrays[this.arrays.length - 1];
      if (c === 44) {
        this.state = array ? S.Value : S.Key;
        return;
      }
      if (c === (array ? 93 : 125)) return this.close();
    }
    throw this.error(this.expected(), i);
  }

  private startValue(c: number, i: number): void {
    if (c === 123 || c === 91) {
      if (this.arrays.length >= this.maxDepth) throw this.error(`nesting deeper than maxDepth (${this.maxDepth})`, i);
      const array = c === 91;
      this.arrays.push(array);
      this.sink.open(array);
      this.state = array ? S.ValueOrCloseArray : S.KeyOrCloseObject;
    } else if (c === 34) {
      this.inKey = false;
      this.sink.stringStart();
      this.state = S.String;
    } else if (c === 45 || isDigit(c)) {
      this.state = S.Number;
      this.numberText = String.fromCharCode(c);
      this.numberState = c === 45 ? N.Minus : c === 48 ? N.Zero : N.Int;
    } else {
      const literal = LITERALS[String.fromCharCode(c)];
      if (literal === undefined) throw this.error(this.expected(), i);
      this.state = S.Literal;
      [this.literal, this.literalValue] = literal;
      this.literalIndex = 1;
    }
  }

  /** One more character of a number; false when it ended the number (the character is then read again). */
  private numberChar(c: number, i: number): boolean {
    const digit = isDigit(c);
    const exponent = c === 101 || c === 69;
    let next: N | undefined;
    switch (this.numberState) {
      case N.Minus:
        next = c === 48 ? N.Zero : digit ? N.Int : undefined;
        break;
      case N.Zero:
        next = c === 46 ? N.Dot : exponent ? N.E : undefined;
        break;
      case N.Int:
        next = digit ? N.Int : c === 46 ? N.Dot : exponent ? N.E : undefined;
        break;
      case N.Dot:
        next = digit ? N.Frac : undefined;
        break;
      case N.Frac:
        next = digit ? N.Frac : exponent ? N.E : undefined;
        break;
      case N.E:
        next = c === 43 || c === 45 ? N.ESign : digit ? N.Exp : undefined;
        break;
      case N.ESign:
      case N.Exp:
        next = digit ? N.Exp : undefined;
    }
    if (next !== undefined) {
      this.numberState = next;
      this.numberText += String.fromCharCode(c);
      return true;
    }
    const s = this.numberState;
    if (s === N.Minus || s === N.Dot || s === N.E || s === N.ESign) throw this.error('expected a digit', i);
    this.valueDone(Number(this.numberText));
    return false;
  }

  /** Characters of a string: a key's are kept until it ends; a value's go to the sink, holding back a high surrogate. */
  private text(s: string): void {
    if (this.inKey) {
      this.keyText += s;
      return;
    }
    if (this.held !== '') {
      s = this.held + s;
      this.held = '';
    }
    if (isHighSurrogate(s.charCodeAt(s.length - 1))) {
      this.held = s[s.length - 1]!;
      s = s.slice(0, -1);
    }
    if (s !== '') this.sink.stringAppend(s);
  }

  private endString(): void {
    if (this.inKey) {
      this.sink.key(this.keyText);
      this.keyText = '';
      this.inKey = false;
      this.state = S.Colon;
      return;
    }
    if (this.held !== '') {
      this.sink.stringAppend(this.held); // a lone high surrogate: JSON.parse keeps it too
      this.held = '';
    }
    this.sink.stringEnd();
    this.afterValue();
  }

  private valueDone(value: number | boolean | null): void {
    this.sink.scalar(value);
    this.afterValue();
  }

  private close(): void {
    this.arrays.pop();
    this.sink.close();
    this.afterValue();
  }

  private afterValue(): void {
    this.state = this.arrays.length === 0 ? S.Done : S.AfterValue;
  }

  private advance(n: number): void {
    this.offset += n;
  }

  private expected(): string {
    switch (this.state) {
      case S.Value:
        return 'expected a value';
      case S.ValueOrCloseArray:
        return "expected a value or ']'";
      case S.KeyOrCloseObject:
        return "expected a string key or '}'";
      case S.Key:
        return 'expected a string key';
      case S.Colon:
        return "expected ':'";
      case S.AfterValue:
        return this.arrays[this.arrays.length - 1] ? "expected ',' or ']'" : "expected ',' or '}'";
      case S.String:
      case S.Escape:
      case S.Unicode:
        return "expected the rest of the string and its closing '\"'";
      case S.Number:
        return 'expected a digit';
      case S.Literal:
        return `expected ${JSON.stringify(this.literal)}`;
      case S.Done:
        return 'expected only whitespace after the JSON value';
    }
  }

  /** The error at index `i` of the current chunk. */
  private error(reason: string, i: number): JsonTextError {
    return new JsonTextError(reason, this.offset + i);
  }
}
