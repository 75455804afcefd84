// Chat Completions `messages` as Responses `input` items, in order: every message keeps its place and role
// (system and developer messages stay messages rather than becoming `instructions`, so a mid-conversation
// system message, several of them, and their order survive), assistant `tool_calls` become `function_call` /
// `custom_tool_call` items after the assistant's text, and `tool` messages their `*_output` items.
import {
  ChatRequestRefusal, arr, given, invalidType, invalidValue, missing, obj, onlyKeys, optEnum, optStr, str, unsupported, type Obj,
} from './chat-read.js';

/** `prompt_cache_breakpoint` of a content part: the same object on both APIs. */
export type PromptCacheBreakpoint = { readonly mode: 'explicit'; readonly ttl?: '30m' | '12h' };

export type ResponsesInputText = { readonly type: 'input_text'; readonly text: string; readonly prompt_cache_breakpoint?: PromptCacheBreakpoint };
export type ResponsesInputContent =
  | ResponsesInputText
  | { readonly type: 'input_image'; readonly image_url: string; readonly detail: 'auto' | 'low' | 'high' | 'original'; readonly prompt_cache_breakpoint?: PromptCacheBreakpoint }
  | {
      readonly type: 'input_file';
      readonly file_data?: string;
      readonly file_id?: string;
      readonly filename?: string;
      readonly prompt_cache_breakpoint?: PromptCacheBreakpoint;
    };
export type ResponsesOutputContent =
  | { readonly type: 'output_text'; readonly text: string; readonly annotations: readonly [] }
  | { readonly type: 'refusal'; readonly refusal: string };

/** The Responses input items a chat conversation maps to. */
export type ResponsesInputItem =
  | { readonly type: 'message'; readonly role: 'system' | 'developer' | 'user'; readonly content: string | readonly ResponsesInputContent[] }
  | { readonly type: 'message'; readonly role: 'assistant'; readonly content: string | readonly ResponsesOutputContent[] }
  | { readonly type: 'function_call'; readonly call_id: string; readonly name: string; readonly arguments: string }
  | { readonly type: 'custom_tool_call'; readonly call_id: string; readonly name: string; readonly input: string }
  | { readonly type: 'function_call_output' | 'custom_tool_call_output'; readonly call_id: string; readonly output: string | readonly ResponsesInputText[] };

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;
// `name` (a participant's name) has no Responses equivalent and is ignored: it never changes what a model is asked.
const TEXT_MESSAGE_KEYS = new Set(['role', 'content', 'name']);
// Clients push the SDK's final message back as it is, so the fields only an answer has are ignored: `parsed`
// (the SDK's), `annotations` (citations the model made) and `reasoning_content` (this gateway's streamed
// reasoning; a Responses reasoning item needs the provider's id and encrypted content).
const ASSISTANT_KEYS = new Set([
  'role', 'content', 'name', 'refusal', 'tool_calls', 'audio', 'function_call', 'reasoning_content', 'parsed', 'annotations',
]);
// `parsed_arguments`: the SDK's parse of `arguments`, on the tool calls of a pushed-back final message.
const FUNCTION_CALL_KEYS = new Set(['name', 'arguments', 'parsed_arguments']);
const TOOL_KEYS = new Set(['role', 'content', 'tool_call_id', 'name']);

const LEGACY = "the legacy 'functions' / 'function_call' interface has no Responses equivalent; use 'tools', 'tool_choice', assistant 'tool_calls' and 'tool' messages.";

/** Maps `messages` (already known to be an array) to Responses input items; throws a ChatRequestRefusal. */
export function messagesToInput(messages: readonly unknown[]): ResponsesInputItem[] {
  if (messages.length === 0) {
    throw new ChatRequestRefusal('messages', "Invalid 'messages': empty array. Expected an array with minimum length 1.", 'invalid_value');
  }
  const items: ResponsesInputItem[] = [];
  // Which kind of call each assistant tool call id was, so that its `tool` answer becomes the matching output item.
  const calls = new Map<string, 'function' | 'custom'>();
  messages.forEach((m, i) => {
    const path = `messages[${i}]`;
    const message = obj(m, path);
    const role = message['role'];
    if (role === 'function') unsupported(`${path}.role`, LEGACY, 'unsupported_value');
    if (role === undefined) missing(`${path}.role`);
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) invalidValue(`${path}.role`, role, ROLES);
    if (role === 'system' || role === 'developer') {
      onlyKeys(message, TEXT_MESSAGE_KEYS, path);
      items.push({ type: 'message', role, content: textContent(message['content'], `${path}.content`) });
    } else if (role === 'user') {
      onlyKeys(message, TEXT_MESSAGE_KEYS, path);
      items.push({ type: 'message', role, content: userContent(message['content'], `${path}.content`) });
    } else if (role === 'assistant') assistant(message, path, items, calls);
    else toolResult(message, path, items, calls);
  });
  return items;
}

/** System, developer and tool content: a string or text parts. */
function textContent(u: unknown, path: string): string | ResponsesInputText[] {
  if (typeof u === 'string') return u;
  return parts(u, path).map((p, j) => {
    const at = `${path}[${j}]`;
    if (p['type'] !== 'text') partType(p['type'], `${at}.type`, ['text']);
    return inputText(p, at);
  });
}

function userContent(u: unknown, path: string): string | ResponsesInputContent[] {
  if (typeof u === 'string') return u;
  return parts(u, path).map((p, j) => userPart(p, `${path}[${j}]`));
}

function parts(u: unknown, path: string): Obj[] {
  if (u === undefined || u === null) missing(path);
  if (!Array.isArray(u)) invalidType(path, 'a string or an array of content parts', u);
  return u.map((p, j) => obj(p, `${path}[${j}]`));
}

const USER_PARTS = ['text', 'image_url', 'file'];

/** A content part of a type this message cannot hold (or no Responses equivalent exists for). */
function partType(type: unknown, path: string, supported: readonly string[]): never {
  if (type === undefined) missing(path);
  return invalidValue(path, type, supported);
}

function breakpoint(p: Obj, path: string): { prompt_cache_breakpoint?: PromptCacheBreakpoint } {
  const b = p['prompt_cache_breakpoint'];
  if (!given(b)) return {};
  const at = `${path}.prompt_cache_breakpoint`;
  const o = obj(b, at);
  onlyKeys(o, ['mode', 'ttl'], at);
  const mode = optEnum(o['mode'], `${at}.mode`, ['explicit'] as const) ?? missing(`${at}.mode`);
  const ttl = optEnum(o['ttl'], `${at}.ttl`, ['30m', '12h'] as const);
  return { prompt_cache_breakpoint: ttl === undefined ? { mode } : { mode, ttl } };
}

function inputText(p: Obj, path: string): ResponsesInputText {
  onlyKeys(p, ['type', 'text', 'prompt_cache_breakpoint'], path);
  return { type: 'input_text', text: str(p['text'], `${path}.text`), ...breakpoint(p, path) };
}

function userPart(p: Obj, path: string): ResponsesInputContent {
  switch (p['type']) {
    case 'text':
      return inputText(p, path);
    case 'image_url': {
      onlyKeys(p, ['type', 'image_url', 'prompt_cache_breakpoint'], path);
      // Some clients send a bare URL string; the API reference names an object.
      const image = typeof p['image_url'] === 'string' ? { url: p['image_url'] } : obj(p['image_url'], `${path}.image_url`);
      onlyKeys(image, ['url', 'detail'], `${path}.image_url`);
      const detail = optEnum(image['detail'], `${path}.image_url.detail`, ['auto', 'low', 'high', 'original'] as const) ?? 'auto';
      return { type: 'input_image', image_url: str(image['url'], `${path}.image_url.url`), detail, ...breakpoint(p, path) };
    }
    case 'input_audio':
      // The Responses API's message content takes text, images and files only (its wire types list no audio part).
      return unsupported(`${path}.type`, "the Responses API takes no audio input; transcribe it first (/v1/audio/transcriptions) and send the text.", 'unsupported_value');
    case 'file': {
      onlyKeys(p, ['type', 'file', 'prompt_cache_breakpoint'], path);
      const file = obj(p['file'], `${path}.file`);
      onlyKeys(file, ['file_data', 'file_id', 'filename'], `${path}.file`);
      const file_data = optStr(file['file_data'], `${path}.file.file_data`);
      const file_id = optStr(file['file_id'], `${path}.file.file_id`);
      const filename = optStr(file['filename'], `${path}.file.filename`);
      if (file_data === undefined && file_id === undefined) missing(`${path}.file.file_data`);
      return {
        type: 'input_file',
        ...(file_data !== undefined ? { file_data } : {}),
        ...(file_id !== undefined ? { file_id } : {}),
        ...(filename !== undefined ? { filename } : {}),
        ...breakpoint(p, path),
      };
    }
    default:
      return partType(p['type'], `${path}.type`, USER_PARTS);
  }
}

function assistant(message: Obj, path: string, items: ResponsesInputItem[], calls: Map<string, 'function' | 'custom'>): void {
  onlyKeys(message, ASSISTANT_KEYS, path);
  if (given(message['function_call'])) unsupported(`${path}.function_call`, LEGACY);
  if (given(message['audio'])) {
    unsupported(`${path}.audio`, 'a Responses conversation cannot refer to an earlier audio answer by id; send its transcript as content.');
  }
  const content = message['content'];
  const refusal = optStr(message['refusal'], `${path}.refusal`);
  const out: ResponsesOutputContent[] = [];
  if (typeof content === 'string' && content !== '') out.push({ type: 'output_text', text: content, annotations: [] });
  else if (given(content) && typeof content !== 'string') {
    parts(content, `${path}.content`).forEach((p, j) => out.push(assistantPart(p, `${path}.content[${j}]`)));
  }
  if (refusal !== undefined) out.push({ type: 'refusal', refusal });
  const toolCalls = message['tool_calls'];
  const texts = out.flatMap((p) => (p.type === 'output_text' ? [p.text] : []));
  if (texts.length < out.length) items.push({ type: 'message', role: 'assistant', content: out });
  // Text only: one string, the form every Responses provider takes for an assistant turn (parts read joined).
  // An empty string beside tool calls is how clients write "no text": no message then.
  else if (texts.length > 0 || (content === '' && !given(toolCalls))) items.push({ type: 'message', role: 'assistant', content: texts.join('') });
  if (!given(toolCalls)) {
    if (out.length === 0 && content !== '') missing(`${path}.content`);
    return;
  }
  arr(toolCalls, `${path}.tool_calls`).forEach((c, j) => items.push(toolCall(c, `${path}.tool_calls[${j}]`, calls)));
}

function assistantPart(p: Obj, path: string): ResponsesOutputContent {
  if (p['type'] === 'text') {
    onlyKeys(p, ['type', 'text'], path);
    return { type: 'output_text', text: str(p['text'], `${path}.text`), annotations: [] };
  }
  if (p['type'] === 'refusal') {
    onlyKeys(p, ['type', 'refusal'], path);
    return { type: 'refusal', refusal: str(p['refusal'], `${path}.refusal`) };
  }
  return partType(p['type'], `${path}.type`, ['text', 'refusal']);
}

function toolCall(u: unknown, path: string, calls: Map<string, 'function' | 'custom'>): ResponsesInputItem {
  const c = obj(u, path);
  const call_id = str(c['id'], `${path}.id`);
  const type = c['type'] ?? 'function';
  if (type === 'function') {
    onlyKeys(c, ['id', 'type', 'function'], path);
    const f = obj(c['function'], `${path}.function`);
    onlyKeys(f, FUNCTION_CALL_KEYS, `${path}.function`);
    calls.set(call_id, 'function');
    return { type: 'function_call', call_id, name: str(f['name'], `${path}.function.name`), arguments: str(f['arguments'], `${path}.function.arguments`) };
  }
  if (type === 'custom') {
    onlyKeys(c, ['id', 'type', 'custom'], path);
    const f = obj(c['custom'], `${path}.custom`);
    onlyKeys(f, ['name', 'input'], `${path}.custom`);
    calls.set(call_id, 'custom');
    return { type: 'custom_tool_call', call_id, name: str(f['name'], `${path}.custom.name`), input: str(f['input'], `${path}.custom.input`) };
  }
  return invalidValue(`${path}.type`, type, ['function', 'custom']);
}

function toolResult(message: Obj, path: string, items: ResponsesInputItem[], calls: Map<string, 'function' | 'custom'>): void {
  onlyKeys(message, TOOL_KEYS, path);
  const call_id = str(message['tool_call_id'], `${path}.tool_call_id`);
  const kind = calls.get(call_id);
  if (kind === undefined) {
    unsupported(`${path}.tool_call_id`, "a 'tool' message must answer a tool call of an earlier assistant message in 'messages'.", 'unsupported_value');
  }
  const output = textContent(message['content'], `${path}.content`);
  items.push({ type: kind === 'custom' ? 'custom_tool_call_output' : 'function_call_output', call_id, output });
}
