// Which kinds of text part an accumulation follows (not exported from the package).
import type { TextKind } from '../accumulateText.js';

/** The kind of a content part, by its type (summary parts are told apart by the events that carry them). */
export function contentKind(partType: unknown): TextKind | undefined {
  return partType === 'output_text' || partType === 'refusal' || partType === 'reasoning_text' ? partType : undefined;
}

/** Which kinds of part one `accumulateText(options)` follows. */
export class WantedKinds {
  constructor(
    readonly output: boolean,
    readonly refusal: boolean,
    readonly reasoning: boolean,
    readonly summary: boolean,
  ) {}

  has(kind: TextKind | undefined): kind is TextKind {
    return kind === 'output_text' ? this.output : kind === 'refusal' ? this.refusal : kind === 'reasoning_text' ? this.reasoning : kind === 'reasoning_summary_text' && this.summary;
  }
}
