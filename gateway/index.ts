/**
 * A gateway speaking the OpenAI protocol (Responses and Chat Completions) in front of an OpenAI-compatible
 * upstream, built from the library's parts: streams recorded in a durable event log, resumable from any
 * instance of a fleet. Node only (`node:http`): the main entry point never imports this module.
 *
 * ```ts
 * import { createServer } from 'node:http';
 * import { createGateway } from 'openai-rx/gateway';
 *
 * createServer(createGateway({ log: 'redis://127.0.0.1:6379', background: true })).listen(8080);
 * ```
 *
 * @packageDocumentation
 * @module openai-rx/gateway
 */
export { createGateway, type Gateway } from './handler.js';
export type { GatewayCaller, GatewayLimits, GatewayOptions, GatewayTimeouts, GatewayUpstream } from './options.js';
export { GatewayHttpError, type GatewayErrorStatus, type OpenAIErrorBody } from './errors.js';
export type { GatewayMetricsSnapshot } from './metrics.js';
export type { AccessLogEntry, AccessLogOption } from './access-log.js';
export { ownerOf } from './auth.js';
export { chatRequestToResponses, type ChatRequestMapping, type ResponsesCreateRequest } from './chat-request.js';
