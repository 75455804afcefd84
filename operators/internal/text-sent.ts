// What toChatChunks has sent of each text part (not exported from the package).

interface Part {
  /** Characters sent. */
  sent: number;
  /** The last piece sent (the text itself is not kept: a rope of a million deltas costs more than the chunks). */
  tail: string;
  /** Where the part starts in the chat message's whole `content` (-1 until it sends any). */
  start: number;
}

/**
 * What was sent per part (`output_text` or `refusal`, by output and content index), so that a `.done`
 * text, a closed item or the final response adds only what the deltas did not carry. A chat client
 * cannot take text back: an authoritative text that does not extend what was sent (checked where the
 * last piece went) adds nothing.
 */
export class SentText {
  private parts = new Map<string, Part>();
  private last: Part | undefined; // deltas come in runs on one part: skip the key then
  private lastRefusal = false;
  private lastOutput = NaN;
  private lastContent = NaN;
  /** Characters of `content` sent so far (annotation offsets are over the whole message). */
  private length = 0;

  /** Records a delta of `text` (or refusal) at (oi, ci). */
  add(refusal: boolean, oi: number, ci: number, delta: string): void {
    const p = this.part(refusal, oi, ci);
    if (!refusal) {
      if (p.start < 0) p.start = this.length;
      this.length += delta.length;
    }
    p.sent += delta.length;
    if (delta.length > 0) p.tail = delta;
  }

  /** What `full`, the part's authoritative text, adds to what was sent ('' when nothing or not an extension). */
  rest(refusal: boolean, oi: number, ci: number, full: string): string {
    const p = this.part(refusal, oi, ci);
    if (full.length <= p.sent || !full.startsWith(p.tail, p.sent - p.tail.length)) return '';
    return full.slice(p.sent);
  }

  /** Where part (oi, ci) starts in the whole `content`, 0 when it sent nothing. */
  startOf(oi: number, ci: number): number {
    const p = this.parts.get(`t${oi}:${ci}`);
    return p === undefined || p.start < 0 ? 0 : p.start;
  }

  private part(refusal: boolean, oi: number, ci: number): Part {
    const last = this.last;
    if (last !== undefined && this.lastRefusal === refusal && this.lastOutput === oi && this.lastContent === ci) return last;
    const key = `${refusal ? 'r' : 't'}${oi}:${ci}`;
    let p = this.parts.get(key);
    if (p === undefined) {
      p = { sent: 0, tail: '', start: -1 };
      this.parts.set(key, p);
    }
    this.last = p;
    this.lastRefusal = refusal;
    this.lastOutput = oi;
    this.lastContent = ci;
    return p;
  }
}
