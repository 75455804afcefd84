// The reference points: a minimal hand-written decoder (the floor) and eventsource-parser + JSON.parse.
// Both accumulate exactly what the checks need and nothing more.
import { createParser } from 'eventsource-parser';

/** What a Responses consumer needs: the message text, the reasoning summary, the function calls. */
export function responsesAccumulator() {
  let text = '';
  let reasoning = '';
  const calls = new Map();
  return {
    event(e) {
      switch (e.type) {
        case 'response.output_text.delta': text += e.delta; break;
        case 'response.reasoning_summary_text.delta': reasoning += e.delta; break;
        case 'response.output_item.added':
          if (e.item.type === 'function_call') calls.set(e.output_index, { name: e.item.name, callId: e.item.call_id, arguments: '' });
          break;
        case 'response.function_call_arguments.delta': calls.get(e.output_index).arguments += e.delta; break;
      }
    },
    result() {
      const out = [...calls.values()].map((c) => ({ ...c, parsed: JSON.parse(c.arguments) }));
      return { text, reasoning, calls: out };
    },
  };
}

/** What a chat consumer needs: the content, the finish reason, the usage. */
export function chatAccumulator() {
  let text = '';
  let finishReason;
  let totalTokens;
  return {
    event(c) {
      const ch = c.choices[0];
      if (ch !== undefined) {
        if (ch.delta.content) text += ch.delta.content;
        if (ch.finish_reason) finishReason = ch.finish_reason;
      }
      if (c.usage) totalTokens = c.usage.total_tokens;
    },
    result: () => ({ text, finishReason, totalTokens }),
  };
}

/** The floor: split on blank lines, take the `data:` line, JSON.parse, accumulate. */
export async function floorDecode(body, acc) {
  const decoder = new TextDecoder();
  let buf = '';
  const block = (b) => {
    const at = b.indexOf('data: ');
    if (at < 0) return;
    const end = b.indexOf('\n', at);
    const data = end < 0 ? b.slice(at + 6) : b.slice(at + 6, end);
    if (data === '[DONE]') return;
    acc.event(JSON.parse(data));
  };
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n', start)) {
      block(buf.slice(start, i));
      start = i + 2;
    }
    buf = buf.slice(start);
  }
  buf += decoder.decode();
  if (buf.trim()) block(buf);
  return acc.result();
}

/** eventsource-parser (a full SSE parser) + JSON.parse. */
export async function eventsourceParserDecode(body, acc) {
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent(m) {
      if (m.data !== '[DONE]') acc.event(JSON.parse(m.data));
    },
  });
  for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
  parser.feed(decoder.decode());
  return acc.result();
}
