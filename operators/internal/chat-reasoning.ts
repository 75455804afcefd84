import type { ChatOutput, Json } from './chat-output.js';
import { grow, type Growth } from './grow.js';

// The reasoning item of fromChatChunks: reasoning text (`reasoning_text` content part), a summary
// (`summary_text` part, from OpenRouter's `reasoning.summary` details) and encrypted reasoning
// (`encrypted_content`, from `reasoning.encrypted`), each part opened by its first delta.

interface Open {
  readonly oi: number;
  readonly id: string;
  text: string | undefined;
  summary: string | undefined;
  encrypted: string | undefined;
  /** Concatenations since `text` / `summary` were last flattened (see grow). */
  readonly growth: { readonly text: Growth; readonly summary: Growth };
}

export class ReasoningItem {
  private r: Open | undefined;

  constructor(private readonly out: ChatOutput) {}

  private opened(): Open {
    if (this.r !== undefined) return this.r;
    this.out.message.close();
    const { oi, id } = this.out.openItem('rs', (id) => ({ id, type: 'reasoning', summary: [], status: 'in_progress' }), () => this.close());
    const r: Open = { oi, id, text: undefined, summary: undefined, encrypted: undefined, growth: { text: { n: 0 }, summary: { n: 0 } } };
    this.r = r;
    return r;
  }

  text(delta: string): void {
    const r = this.opened();
    if (r.text === undefined) {
      r.text = '';
      this.out.next({ type: 'response.content_part.added', item_id: r.id, output_index: r.oi, content_index: 0, part: { type: 'reasoning_text', text: '' } });
    }
    r.text = grow(r.growth.text, r.text, delta);
    this.out.next({ type: 'response.reasoning_text.delta', item_id: r.id, output_index: r.oi, content_index: 0, delta });
  }

  summary(delta: string): void {
    const r = this.opened();
    if (r.summary === undefined) {
      r.summary = '';
      this.out.next({ type: 'response.reasoning_summary_part.added', item_id: r.id, output_index: r.oi, summary_index: 0, part: { type: 'summary_text', text: '' } });
    }
    r.summary = grow(r.growth.summary, r.summary, delta);
    this.out.next({ type: 'response.reasoning_summary_text.delta', item_id: r.id, output_index: r.oi, summary_index: 0, delta });
  }

  /** Opaque reasoning state to send back on the next turn; it has no events of its own. */
  encrypted(data: string): void {
    const r = this.opened();
    r.encrypted = (r.encrypted ?? '') + data;
  }

  close(): void {
    const r = this.r;
    if (r === undefined) return;
    this.r = undefined;
    const content: Json[] = [];
    const summary: Json[] = [];
    if (r.text !== undefined) {
      const part = { type: 'reasoning_text', text: r.text };
      this.out.next({ type: 'response.reasoning_text.done', item_id: r.id, output_index: r.oi, content_index: 0, text: r.text });
      this.out.next({ type: 'response.content_part.done', item_id: r.id, output_index: r.oi, content_index: 0, part });
      content.push(part);
    }
    if (r.summary !== undefined) {
      const part = { type: 'summary_text', text: r.summary };
      this.out.next({ type: 'response.reasoning_summary_text.done', item_id: r.id, output_index: r.oi, summary_index: 0, text: r.summary });
      this.out.next({ type: 'response.reasoning_summary_part.done', item_id: r.id, output_index: r.oi, summary_index: 0, part });
      summary.push(part);
    }
    const item: Json = { id: r.id, type: 'reasoning', summary, content, status: this.out.itemStatus() };
    if (r.encrypted !== undefined) item['encrypted_content'] = r.encrypted;
    this.out.doneItem(r.oi, item);
  }
}
