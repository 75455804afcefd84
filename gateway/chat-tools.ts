// Chat Completions `tools`, `tool_choice` and `response_format` in their Responses shapes: the chat API nests a
// tool's fields under `function` / `custom`, the Responses API puts them on the tool itself.
import { arr, given, invalidValue, missing, obj, onlyKeys, optBool, optEnum, optStr, str, type Obj } from './chat-read.js';

export type ResponsesFunctionTool = {
  readonly type: 'function';
  readonly name: string;
  readonly description?: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly strict: boolean;
};
export type ResponsesCustomToolFormat =
  | { readonly type: 'text' }
  | { readonly type: 'grammar'; readonly definition: string; readonly syntax: 'lark' | 'regex' };
export type ResponsesCustomTool = {
  readonly type: 'custom';
  readonly name: string;
  readonly description?: string;
  readonly format?: ResponsesCustomToolFormat;
};
export type ResponsesTool = ResponsesFunctionTool | ResponsesCustomTool;

export type ResponsesToolReference = { readonly type: 'function' | 'custom'; readonly name: string };
export type ResponsesToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | ResponsesToolReference
  | { readonly type: 'allowed_tools'; readonly mode: 'auto' | 'required'; readonly tools: readonly ResponsesToolReference[] };

export type ResponsesTextFormat =
  | { readonly type: 'text' }
  | { readonly type: 'json_object' }
  | {
      readonly type: 'json_schema';
      readonly name: string;
      readonly schema: Readonly<Record<string, unknown>>;
      readonly description?: string;
      readonly strict?: boolean;
    };

const TOOL_TYPES = ['function', 'custom'] as const;

/** `tools` → Responses tools. */
export function toolsOf(u: unknown): ResponsesTool[] {
  return arr(u, 'tools').map((t, i) => tool(obj(t, `tools[${i}]`), `tools[${i}]`));
}

function description(o: Obj, path: string): { description?: string } {
  const d = optStr(o['description'], `${path}.description`);
  return d === undefined ? {} : { description: d };
}

function tool(t: Obj, path: string): ResponsesTool {
  if (t['type'] === 'function') {
    onlyKeys(t, ['type', 'function'], path);
    const f = obj(t['function'], `${path}.function`);
    onlyKeys(f, ['name', 'description', 'parameters', 'strict'], `${path}.function`);
    const parameters = given(f['parameters']) ? obj(f['parameters'], `${path}.function.parameters`) : undefined;
    return {
      type: 'function',
      name: str(f['name'], `${path}.function.name`),
      ...description(f, `${path}.function`),
      // Chat: no parameters means no arguments. Responses requires the field, so say that explicitly.
      parameters: parameters ?? { type: 'object', properties: {} },
      // Chat defaults `strict` to false, Responses to true: always send the chat meaning.
      strict: optBool(f['strict'], `${path}.function.strict`) ?? false,
    };
  }
  if (t['type'] === 'custom') {
    onlyKeys(t, ['type', 'custom'], path);
    const c = obj(t['custom'], `${path}.custom`);
    onlyKeys(c, ['name', 'description', 'format'], `${path}.custom`);
    const format = given(c['format']) ? customFormat(obj(c['format'], `${path}.custom.format`), `${path}.custom.format`) : undefined;
    return { type: 'custom', name: str(c['name'], `${path}.custom.name`), ...description(c, `${path}.custom`), ...(format ? { format } : {}) };
  }
  if (t['type'] === undefined) missing(`${path}.type`);
  return invalidValue(`${path}.type`, t['type'], TOOL_TYPES);
}

function customFormat(f: Obj, path: string): ResponsesCustomToolFormat {
  if (f['type'] === 'text') {
    onlyKeys(f, ['type'], path);
    return { type: 'text' };
  }
  if (f['type'] === 'grammar') {
    onlyKeys(f, ['type', 'grammar'], path);
    const g = obj(f['grammar'], `${path}.grammar`);
    onlyKeys(g, ['definition', 'syntax'], `${path}.grammar`);
    const syntax = optEnum(g['syntax'], `${path}.grammar.syntax`, ['lark', 'regex'] as const) ?? missing(`${path}.grammar.syntax`);
    return { type: 'grammar', definition: str(g['definition'], `${path}.grammar.definition`), syntax };
  }
  if (f['type'] === undefined) missing(`${path}.type`);
  return invalidValue(`${path}.type`, f['type'], ['text', 'grammar']);
}

/** A named tool: chat `{ type, function: { name } }` / `{ type, custom: { name } }` → Responses `{ type, name }`. */
function reference(r: Obj, path: string): ResponsesToolReference {
  const type = r['type'];
  if (type !== 'function' && type !== 'custom') {
    if (type === undefined) missing(`${path}.type`);
    return invalidValue(`${path}.type`, type, TOOL_TYPES);
  }
  onlyKeys(r, ['type', type], path);
  const inner = obj(r[type], `${path}.${type}`);
  onlyKeys(inner, ['name'], `${path}.${type}`);
  return { type, name: str(inner['name'], `${path}.${type}.name`) };
}

/** `tool_choice` → Responses `tool_choice`. */
export function toolChoiceOf(u: unknown): ResponsesToolChoice {
  if (u === 'none' || u === 'auto' || u === 'required') return u;
  if (typeof u === 'string') return invalidValue('tool_choice', u, ['none', 'auto', 'required']);
  const c = obj(u, 'tool_choice');
  if (c['type'] !== 'allowed_tools') return reference(c, 'tool_choice');
  onlyKeys(c, ['type', 'allowed_tools'], 'tool_choice');
  const a = obj(c['allowed_tools'], 'tool_choice.allowed_tools');
  onlyKeys(a, ['mode', 'tools'], 'tool_choice.allowed_tools');
  const mode = optEnum(a['mode'], 'tool_choice.allowed_tools.mode', ['auto', 'required'] as const) ?? missing('tool_choice.allowed_tools.mode');
  const tools = arr(a['tools'], 'tool_choice.allowed_tools.tools').map((t, i) => {
    const path = `tool_choice.allowed_tools.tools[${i}]`;
    return reference(obj(t, path), path);
  });
  return { type: 'allowed_tools', mode, tools };
}

/** `response_format` → Responses `text.format`. */
export function textFormatOf(u: unknown): ResponsesTextFormat {
  const f = obj(u, 'response_format');
  const type = f['type'];
  if (type === 'text' || type === 'json_object') {
    onlyKeys(f, ['type'], 'response_format');
    return { type };
  }
  if (type === 'json_schema') {
    onlyKeys(f, ['type', 'json_schema'], 'response_format');
    const path = 'response_format.json_schema';
    const s = obj(f['json_schema'], path);
    onlyKeys(s, ['name', 'description', 'schema', 'strict'], path);
    // Optional in Chat, required by Responses: a schema-less json_schema format cannot be expressed.
    if (!given(s['schema'])) missing(`${path}.schema`);
    const strict = optBool(s['strict'], `${path}.strict`);
    return {
      type: 'json_schema',
      name: str(s['name'], `${path}.name`),
      schema: obj(s['schema'], `${path}.schema`),
      ...description(s, path),
      ...(strict === undefined ? {} : { strict }),
    };
  }
  if (type === undefined) missing('response_format.type');
  return invalidValue('response_format.type', type, ['text', 'json_object', 'json_schema']);
}
