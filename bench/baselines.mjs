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

/**
 * The floor: scan lines, keep the `data:` line, JSON.parse it at the blank line, accumulate.
 * (Splitting the decoded text on blank lines first measured 2-3x slower here than this single line scan.)
 */
export async function floorDecode(body, acc) {
  const decoder = new TextDecoder();
  let rest = '';
  let data;
  const scan = (s) => {
    let at = 0;
    for (let nl = s.indexOf('\n'); nl >= 0; at = nl + 1, nl = s.indexOf('\n', at)) {
      if (nl === at) {
        if (data !== undefined && data !== '[DONE]') acc.event(JSON.parse(data));
        data = undefined;
      } else if (s.startsWith('data: ', at)) data = s.slice(at + 6, nl);
    }
    return s.slice(at);
  };
  for await (const chunk of body) rest = scan(rest === '' ? decoder.decode(chunk, { stream: true }) : [rest, decoder.decode(chunk, { stream: true })].join(''));
  scan(rest + decoder.decode() + '\n\n');
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
