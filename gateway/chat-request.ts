// A Chat Completions create request as a Responses create request, for serving chat clients from the Responses
// API (`toChatChunks` turns the answer back). Every field is mapped, ignored for a stated reason, or refused
// with a 400 naming it: a silent drop would change what the client asked for without telling it.
import { GatewayHttpError, invalidRequest } from './errors.js';
import { messagesToInput, type ResponsesInputItem } from './chat-messages.js';
import {
  ChatRequestRefusal, arr, given, invalidType, isObj, onlyKeys, optBool, optEnum, optInt, optNum, optObj, optStr, str, unsupported, type Obj,
} from './chat-read.js';
import { textFormatOf, toolChoiceOf, toolsOf, type ResponsesTextFormat, type ResponsesTool, type ResponsesToolChoice } from './chat-tools.js';

export type { ResponsesInputItem, ResponsesInputContent, ResponsesInputText, ResponsesOutputContent } from './chat-messages.js';
export type { ResponsesTool, ResponsesToolChoice, ResponsesTextFormat, ResponsesToolReference } from './chat-tools.js';

/** The Responses create request a chat request maps to (only the fields a chat request can set). */
export type ResponsesCreateRequest = {
  readonly model: string;
  readonly input: readonly ResponsesInputItem[];
  readonly stream?: boolean;
  readonly stream_options?: { readonly include_obfuscation: boolean };
  readonly max_output_tokens?: number;
  readonly temperature?: number;
  readonly top_p?: number;
  readonly user?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  /** Always set: Chat Completions stores nothing unless asked, Responses stores unless told not to. */
  readonly store: boolean;
  readonly parallel_tool_calls?: boolean;
  readonly reasoning?: { readonly effort: string };
  readonly text?: { readonly format?: ResponsesTextFormat; readonly verbosity?: 'low' | 'medium' | 'high' };
  readonly tools?: readonly ResponsesTool[];
  readonly tool_choice?: ResponsesToolChoice;
  readonly service_tier?: string;
  readonly safety_identifier?: string;
  readonly prompt_cache_key?: string;
  readonly prompt_cache_retention?: string;
  readonly prompt_cache_options?: Readonly<Record<string, unknown>>;
  readonly moderation?: Readonly<Record<string, unknown>>;
};

/** The mapping's result: the Responses request and what `toChatChunks` needs, or the 400 to answer with. */
export type ChatRequestMapping =
  | {
      readonly ok: true;
      readonly request: ResponsesCreateRequest;
      /** `stream_options.include_usage`: pass as `toChatChunks({ includeUsage })`. */
      readonly includeUsage: boolean;
    }
  | { readonly ok: false; readonly error: GatewayHttpError };

const MAPPED = [
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'user', 'metadata',
  'store', 'parallel_tool_calls', 'reasoning_effort', 'verbosity', 'response_format', 'tools', 'tool_choice', 'service_tier',
  'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options', 'moderation',
];
/** Fields refused unless they hold their neutral value (`n: 1`, `logprobs: false`, `stop: []`, …), which is ignored. */
const REFUSED = [
  'n', 'logit_bias', 'logprobs', 'top_logprobs', 'frequency_penalty', 'presence_penalty', 'seed', 'stop', 'modalities', 'audio',
  'prediction', 'functions', 'function_call', 'web_search_options',
];
const KNOWN = new Set([...MAPPED, ...REFUSED]);

const LEGACY = "the legacy 'functions' / 'function_call' interface has no Responses equivalent; use 'tools' and 'tool_choice'.";
const NO_EQUIVALENT = 'the Responses API has no such parameter.';

/**
 * Maps a Chat Completions create request (a parsed JSON body, unchecked) to a Responses create request: messages
 * to input items in order (system / developer / user / assistant messages, text, image and file parts,
 * assistant `tool_calls` → `function_call` / `custom_tool_call`, `tool` messages → their `*_output`), `tools`,
 * `tool_choice`, `response_format` → `text.format`, `max_tokens` / `max_completion_tokens` → `max_output_tokens`,
 * `reasoning_effort` → `reasoning.effort`, no `store` → `store: false` (Chat's default), and the parameters both APIs
 * share. What has no Responses equivalent (`n > 1`, `logit_bias`, logprobs, penalties, `seed`, `stop`, audio in or
 * out, predictions, the legacy `functions`) is refused with an OpenAI-style 400 (`invalid_request_error`, `param`
 * naming the JSON path). Pure; a request it cannot map is a result, never a throw.
 *
 * ```ts
 * const mapped = chatRequestToResponses(JSON.parse(body));
 * if (!mapped.ok) return writeError(res, mapped.error);            // 400 { error: { message, type, param, code } }
 * streamResponse(mapped.request, config).pipe(toChatChunks({ includeUsage: mapped.includeUsage }), toChatSSE());
 * ```
 */
export function chatRequestToResponses(body: unknown): ChatRequestMapping {
  try {
    return map(body);
  } catch (e) {
    if (e instanceof ChatRequestRefusal) return { ok: false, error: invalidRequest(e.message, e.param, e.code) };
    throw e;
  }
}

function map(body: unknown): ChatRequestMapping & { ok: true } {
  if (!isObj(body)) {
    throw new ChatRequestRefusal(null, `The request body must be a JSON object, but got ${Array.isArray(body) ? 'an array' : body === null ? 'null' : `a ${typeof body}`}.`, 'invalid_type');
  }
  onlyKeys(body, KNOWN, '');
  refuseUnmappable(body);
  const out: Record<string, unknown> = { model: str(body['model'], 'model'), input: messagesToInput(arr(body['messages'], 'messages')) };
  const set = (key: string, value: unknown): void => {
    if (value !== undefined) out[key] = value;
  };
  set('stream', optBool(body['stream'], 'stream'));
  const streamOptions = optObj(body['stream_options'], 'stream_options');
  if (streamOptions) onlyKeys(streamOptions, ['include_usage', 'include_obfuscation'], 'stream_options');
  const obfuscation = optBool(streamOptions?.['include_obfuscation'], 'stream_options.include_obfuscation');
  if (obfuscation !== undefined) out['stream_options'] = { include_obfuscation: obfuscation };
  set('max_output_tokens', maxTokens(body));
  set('temperature', optNum(body['temperature'], 'temperature'));
  set('top_p', optNum(body['top_p'], 'top_p'));
  set('user', optStr(body['user'], 'user'));
  set('metadata', metadata(body['metadata']));
  out['store'] = optBool(body['store'], 'store') ?? false;
  set('parallel_tool_calls', optBool(body['parallel_tool_calls'], 'parallel_tool_calls'));
  const effort = optStr(body['reasoning_effort'], 'reasoning_effort');
  if (effort !== undefined) out['reasoning'] = { effort };
  const format = given(body['response_format']) ? textFormatOf(body['response_format']) : undefined;
  const verbosity = optEnum(body['verbosity'], 'verbosity', ['low', 'medium', 'high'] as const);
  if (format !== undefined || verbosity !== undefined) out['text'] = { ...(format ? { format } : {}), ...(verbosity !== undefined ? { verbosity } : {}) };
  if (given(body['tools'])) out['tools'] = toolsOf(body['tools']);
  if (given(body['tool_choice'])) out['tool_choice'] = toolChoiceOf(body['tool_choice']);
  for (const key of ['service_tier', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention']) set(key, optStr(body[key], key));
  for (const key of ['prompt_cache_options', 'moderation']) set(key, optObj(body[key], key));
  const includeUsage = optBool(streamOptions?.['include_usage'], 'stream_options.include_usage') ?? false;
  return { ok: true, request: out as ResponsesCreateRequest, includeUsage };
}

/** The chat-only parameters: their neutral values pass (and are dropped), anything else is refused. */
function refuseUnmappable(body: Obj): void {
  const n = optInt(body['n'], 'n');
  if (n !== undefined && n !== 1) unsupported('n', 'one choice per request only; send separate requests for more.', 'unsupported_value');
  const bias = optObj(body['logit_bias'], 'logit_bias');
  if (bias && Object.keys(bias).length > 0) unsupported('logit_bias', NO_EQUIVALENT);
  if (optBool(body['logprobs'], 'logprobs') === true) unsupported('logprobs', 'log probabilities are not carried into the chat chunks.', 'unsupported_value');
  const top = optInt(body['top_logprobs'], 'top_logprobs');
  if (top !== undefined && top !== 0) unsupported('top_logprobs', 'log probabilities are not carried into the chat chunks.', 'unsupported_value');
  for (const key of ['frequency_penalty', 'presence_penalty']) {
    const v = optNum(body[key], key);
    if (v !== undefined && v !== 0) unsupported(key, NO_EQUIVALENT, 'unsupported_value');
  }
  if (optInt(body['seed'], 'seed') !== undefined) unsupported('seed', NO_EQUIVALENT);
  const stop = body['stop'];
  if (typeof stop === 'string' || (Array.isArray(stop) && stop.length > 0)) unsupported('stop', NO_EQUIVALENT);
  if (given(stop) && !Array.isArray(stop)) invalidType('stop', 'a string or an array of strings', stop);
  const modalities = given(body['modalities']) ? arr(body['modalities'], 'modalities') : [];
  modalities.forEach((m, i) => {
    if (str(m, `modalities[${i}]`) !== 'text') unsupported(`modalities[${i}]`, 'only text output can be served from the Responses API.', 'unsupported_value');
  });
  if (given(body['audio'])) unsupported('audio', 'audio output cannot be served from the Responses API.');
  if (given(body['prediction'])) unsupported('prediction', NO_EQUIVALENT);
  if (given(body['functions'])) unsupported('functions', LEGACY);
  if (given(body['function_call'])) unsupported('function_call', LEGACY);
  if (given(body['web_search_options'])) {
    unsupported('web_search_options', "send the request to /v1/responses with a 'web_search' tool instead.");
  }
}

/** `max_completion_tokens` (current) or `max_tokens` (deprecated); both with different values is ambiguous. */
function maxTokens(body: Obj): number | undefined {
  const current = optInt(body['max_completion_tokens'], 'max_completion_tokens');
  const legacy = optInt(body['max_tokens'], 'max_tokens');
  if (current !== undefined && legacy !== undefined && current !== legacy) {
    throw new ChatRequestRefusal('max_tokens', "'max_tokens' and 'max_completion_tokens' disagree; send only 'max_completion_tokens'.", 'invalid_value');
  }
  return current ?? legacy;
}

function metadata(u: unknown): Record<string, string> | undefined {
  const m = optObj(u, 'metadata');
  if (m === undefined) return undefined;
  // fromEntries defines own properties, so a key such as `__proto__` stays a key.
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, str(v, `metadata.${k}`)]));
}
