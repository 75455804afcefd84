// Strings grown by many small deltas (not exported from the package).

/** How many concatenations a growing string has had since it was last flattened. */
export interface Growth {
  n: number;
}

/**
 * `prev + d`, kept compact. V8 concatenates into a rope: one 32-byte node per delta, so a 10 MB argument
 * streamed a character at a time would hold ~320 MB until read. Once the nodes since the last flattening
 * outnumber 1/32 of the characters, the rope is flattened in place (`charCodeAt` does it: the same string,
 * now one flat buffer; the old nodes become garbage). That keeps the nodes under ~1x the text and copies each
 * character a bounded number of times (the flattening points grow geometrically): linear overall.
 */
export function grow(g: Growth, prev: string, d: string): string {
  const s = prev + d;
  if (++g.n >= 64 && g.n * 32 >= s.length) {
    s.charCodeAt(0);
    g.n = 0;
  }
  return s;
}

/**
 * A text made of many small pieces and read only once they have all come (fromChatChunks' message parts, read at
 * the `.done` event). The pieces wait in a list and are joined 256 at a time onto the text: one flat string and one
 * rope node per 256 pieces, where `grow` makes a node per piece (each of which lives through the collections of
 * the young generation until a flattening frees it) and copies the text again at every flattening.
 */
export class Pieces {
  private text = '';
  private readonly pending: string[] = [];

  add(piece: string): void {
    const p = this.pending;
    p.push(piece);
    if (p.length === 256) this.join();
  }

  /** The whole text so far. */
  value(): string {
    if (this.pending.length > 0) this.join();
    return this.text;
  }

  private join(): void {
    this.text += this.pending.join('');
    this.pending.length = 0;
  }
}
