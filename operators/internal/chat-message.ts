import type { ChatOutput, Json } from './chat-output.js';
import { Pieces } from './grow.js';
import type { TextAccumulation } from './text-accumulation.js';

// The assistant message of fromChatChunks: an `output_text` part (with annotations and logprobs), a
// `refusal` part and an `output_audio` part, each opened by its first delta, in that order of arrival.

interface TextPart { readonly kind: 'text'; readonly ci: number; readonly text: Pieces; readonly annotations: Json[]; readonly logprobs: Json[] }
interface RefusalPart { readonly kind: 'refusal'; readonly ci: number; readonly text: Pieces }
interface AudioPart { readonly kind: 'audio'; readonly ci: number; data: string; transcript: string; id: string | undefined; expiresAt: number | undefined }
type Part = TextPart | RefusalPart | AudioPart;

interface Open { readonly oi: number; readonly id: string; readonly parts: Part[]; text?: TextPart; refusal?: RefusalPart; audio?: AudioPart }

/** A cited source, annotated on the text part as `url_citation` at its `[n]` marker. */
export interface Citation { readonly url: string; title: string }

export interface AudioDelta { readonly id?: string; readonly data?: string; readonly transcript?: string; readonly expiresAt?: number }

export class MessageItem {
  private m: Open | undefined;
  /** Citations in marker order (`[1]` is the first), from chunk-level lists (Perplexity, xAI). */
  private readonly citations: Citation[] = [];
  private readonly cited = new Map<string, Citation>();
  /** How many citations are already annotated on a text part that closed. */
  private annotated = 0;
  /** An audio id / expiry that came before any audio data. */
  private audioMeta: { id: string | undefined; expiresAt: number | undefined } | undefined;

  constructor(private readonly out: ChatOutput) {}

  private opened(): Open {
    if (this.m !== undefined) return this.m;
    this.out.reasoning.close();
    const { oi, id } = this.out.openItem('msg', (id) => ({ id, type: 'message', status: 'in_progress', role: 'assistant', content: [] }), () => this.close());
    const m: Open = { oi, id, parts: [] };
    this.m = m;
    return m;
  }

  private addPart<P extends Part>(m: Open, part: P, empty: Json): P {
    m.parts.push(part);
    this.out.next({ type: 'response.content_part.added', item_id: m.id, output_index: m.oi, content_index: part.ci, part: empty });
    return part;
  }

  private textPart(): { m: Open; p: TextPart } {
    const m = this.opened();
    const p = m.text ?? (m.text = this.addPart(m, { kind: 'text', ci: m.parts.length, text: new Pieces(), annotations: [], logprobs: [] }, {
      type: 'output_text', text: '', annotations: [], logprobs: [],
    }));
    return { m, p };
  }

  /** A text delta; `logprobs` are the chunk's token logprobs, carried by the delta event and kept for the part. */
  text(delta: string, logprobs: Json[]): void {
    const { m, p } = this.textPart();
    p.text.add(delta);
    for (let i = 0; i < logprobs.length; i++) p.logprobs.push(logprobs[i]!);
    const out = this.out;
    out.emit({ type: 'response.output_text.delta', item_id: m.id, output_index: m.oi, content_index: p.ci, delta, logprobs, sequence_number: out.sequence() });
  }

  /**
   * A text delta without logprobs, handed to an accumulateText that is the conversion's direct subscriber instead
   * of sent as an event, when that changes nothing it sees (see TextAccumulation.continues); `false`, having done
   * nothing, otherwise: `text()` then sends the event.
   */
  directText(delta: string, acc: TextAccumulation): boolean {
    const m = this.m;
    const p = m?.text;
    if (p === undefined || !acc.continues(m!.oi, p.ci)) return false;
    p.text.add(delta);
    this.out.sequence(); // the event's number, as the event path would take it
    acc.chatText(m!.id, delta);
    return true;
  }

  /** Logprobs of a chunk that carried no text: kept on the open text part, if any. */
  logprobs(logprobs: Json[]): void {
    const p = this.m?.text;
    if (p !== undefined) for (let i = 0; i < logprobs.length; i++) p.logprobs.push(logprobs[i]!);
  }

  refusal(delta: string): void {
    const m = this.opened();
    const p = m.refusal ?? (m.refusal = this.addPart(m, { kind: 'refusal', ci: m.parts.length, text: new Pieces() }, { type: 'refusal', refusal: '' }));
    p.text.add(delta);
    this.out.next({ type: 'response.refusal.delta', item_id: m.id, output_index: m.oi, content_index: p.ci, delta });
  }

  /** An annotation with a Responses equivalent, added to the text part now. */
  annotation(annotation: Json): void {
    const { m, p } = this.textPart();
    p.annotations.push(annotation);
    this.out.next({
      type: 'response.output_text.annotation.added', item_id: m.id, output_index: m.oi, content_index: p.ci,
      annotation_index: p.annotations.length - 1, annotation,
    });
  }

  /** A source cited by URL; resent lists add nothing. Annotated when the text part closes and its markers are known. */
  cite(url: string, title: string | undefined): void {
    const c = this.cited.get(url);
    if (c === undefined) {
      const fresh = { url, title: title ?? '' };
      this.cited.set(url, fresh);
      this.citations.push(fresh);
    } else if (c.title === '' && title) {
      c.title = title;
    }
  }

  /**
   * Audio output (`delta.audio`): data → `response.audio.delta`, transcript → `response.audio.transcript.delta`.
   * An id or expiry alone (OpenAI ends with `{ expires_at }`) updates the audio part and opens nothing.
   */
  audio(a: AudioDelta): void {
    const open = this.m?.audio;
    if (!a.data && !a.transcript && open === undefined) {
      this.audioMeta = { id: a.id ?? this.audioMeta?.id, expiresAt: a.expiresAt ?? this.audioMeta?.expiresAt };
      return;
    }
    const m = this.opened();
    const p = m.audio ?? (m.audio = this.addPart(m, { kind: 'audio', ci: m.parts.length, data: '', transcript: '', id: this.audioMeta?.id, expiresAt: this.audioMeta?.expiresAt }, {
      type: 'output_audio', data: '', transcript: '',
    }));
    this.audioMeta = undefined;
    if (a.id) p.id = a.id;
    if (a.expiresAt !== undefined) p.expiresAt = a.expiresAt;
    if (a.data) {
      p.data += a.data;
      this.out.next({ type: 'response.audio.delta', delta: a.data });
    }
    if (a.transcript) {
      p.transcript += a.transcript;
      this.out.next({ type: 'response.audio.transcript.delta', delta: a.transcript });
    }
  }

  close(): void {
    const m = this.m;
    if (m === undefined) return;
    this.m = undefined;
    const content: Json[] = [];
    for (const p of m.parts) {
      const at = { item_id: m.id, output_index: m.oi, content_index: p.ci };
      let part: Json;
      if (p.kind === 'text') {
        const text = p.text.value();
        this.annotateCitations(m, p, text);
        part = { type: 'output_text', text, annotations: p.annotations, logprobs: p.logprobs };
        this.out.next({ type: 'response.output_text.done', ...at, text, logprobs: p.logprobs });
      } else if (p.kind === 'refusal') {
        const refusal = p.text.value();
        part = { type: 'refusal', refusal };
        this.out.next({ type: 'response.refusal.done', ...at, refusal });
      } else {
        part = { type: 'output_audio', data: p.data, transcript: p.transcript };
        if (p.id !== undefined) part['id'] = p.id;
        if (p.expiresAt !== undefined) part['expires_at'] = p.expiresAt;
        this.out.next({ type: 'response.audio.done' });
        this.out.next({ type: 'response.audio.transcript.done' });
      }
      this.out.next({ type: 'response.content_part.done', ...at, part });
      content.push(part);
    }
    this.out.doneItem(m.oi, { id: m.id, type: 'message', status: this.out.itemStatus(), role: 'assistant', content });
  }

  /** The citations not yet annotated, each at its first `[n]` marker (or an empty range at the end). */
  private annotateCitations(m: Open, p: TextPart, text: string): void {
    for (let i = this.annotated; i < this.citations.length; i++) {
      const c = this.citations[i]!;
      const marker = `[${i + 1}]`;
      const at = text.indexOf(marker);
      const start = at < 0 ? text.length : at;
      const annotation = { type: 'url_citation', start_index: start, end_index: at < 0 ? start : start + marker.length, url: c.url, title: c.title };
      p.annotations.push(annotation);
      this.out.next({
        type: 'response.output_text.annotation.added', item_id: m.id, output_index: m.oi, content_index: p.ci,
        annotation_index: p.annotations.length - 1, annotation,
      });
    }
    this.annotated = this.citations.length;
  }
}
