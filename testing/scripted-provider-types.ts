// What a scripted provider is told (its turns: replies, or functions of the request) and what it records.
import type { ResponsesWebSocketServer } from './ws-server.js';

/** A function call the scripted model makes; `arguments` as an object is sent as JSON. */
export interface ScriptedCall {
  readonly name: string;
  readonly arguments: unknown;
  /** Default `call_<request index>_<position>`. */
  readonly call_id?: string;
}

/**
 * One answer. Its output items come in this order: `reasoning` (with `encrypted_content`, as with
 * `include: ['reasoning.encrypted_content']`), `items` as given (a `shell_call`, an `mcp_approval_request`…),
 * `calls`, then `text` as an assistant message. A string is a whole Responses SSE transcript, its response id
 * replaced by the request's `responseId` (over both transports). `error` answers with an HTTP status (over
 * WebSocket: an `error` event with that status).
 */
export type ScriptedReply =
  | string
  | {
      readonly text?: string;
      readonly calls?: readonly ScriptedCall[];
      readonly items?: ReadonlyArray<Record<string, unknown>>;
      readonly reasoning?: { readonly encrypted_content: string; readonly summary?: string };
      /** Ends the response `incomplete` (reason `max_output_tokens`) instead of `completed`. */
      readonly incomplete?: boolean;
    }
  | { readonly error: { readonly status: number; readonly message?: string; readonly code?: string } };

/** What the provider received, and what it answered. */
export interface ScriptedRequest {
  /** 0-based, across both transports, in arrival order. */
  readonly index: number;
  readonly transport: 'http' | 'websocket';
  /** The JSON body (HTTP) or the `response.create` event (WebSocket), as received. */
  readonly body: Record<string, unknown>;
  /** The id of the response that answers it. */
  readonly responseId: string;
  readonly previousResponseId: string | undefined;
  /** The input as items (a string input is one user message). */
  readonly input: ReadonlyArray<Record<string, unknown>>;
  /** The `*_output` / `mcp_approval_response` items of the input, in order. */
  readonly toolOutputs: ReadonlyArray<Record<string, unknown>>;
  /** The `output` of the `function_call_output` for `callId`, if the request carries one. */
  output(callId: string): unknown;
  /** The WebSocket lane (`stream_id`), if any. */
  readonly lane?: string;
  /** The status answered: 200, or the 400 of a conversation with a call left unanswered, or a scripted error. */
  status: number;
}

export interface ScriptedProviderOptions {
  /** The answer to request n (0-based): a reply, or a function of the request. */
  readonly turns?: ReadonlyArray<ScriptedReply | ((request: ScriptedRequest) => ScriptedReply)>;
  /** Or one function answering every request (several agents at once, say); used when `turns` has no entry left. */
  readonly respond?: (request: ScriptedRequest) => ScriptedReply;
  /** Milliseconds between the events of an answer, over HTTP and WebSocket. Default 0 (HTTP: all at once; WebSocket: one frame per turn of the event loop). */
  readonly chunkDelayMs?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
}

export interface ScriptedProvider {
  /** `http://127.0.0.1:<port>/v1`: the `baseURL` for HTTP (and `connectResponsesSocket({ baseURL })`). */
  readonly baseURL: string;
  /** `ws://127.0.0.1:<port>/v1/responses`. */
  readonly webSocketURL: string;
  readonly requests: readonly ScriptedRequest[];
  readonly webSocket: ResponsesWebSocketServer;
  /** Resolves once request `index` has arrived. */
  waitForRequest(index: number): Promise<ScriptedRequest>;
  /**
   * How the HTTP answer to request `index` ended, once it has: `'completed'` when all of it was written,
   * `'aborted'` when the client closed the connection first (a cancelled turn). Only for HTTP requests.
   */
  answerEnded(index: number): Promise<'completed' | 'aborted'>;
  close(): Promise<void>;
}
