// Marble helpers for the chat operator specs.

/** Source marbles with one event every 5 frames (`'abc|'` → a at 0, b at 5, c at 10, end at 15). */
export const spaced = (m: string): string => m.split('').join(' 4ms ');

/** Expected marbles from (frame, token) pairs, so a group never shifts the frames after it. */
export const at = (...parts: Array<[number, string]>): string => {
  let t = 0;
  let out = '';
  for (const [frame, token] of parts) {
    if (frame < t) throw new Error(`frame ${frame} overlaps the previous token`);
    if (frame > t) out += ` ${frame - t}ms `;
    out += token;
    t = frame + token.length;
  }
  return out;
};
