/**
 * Loopback servers that speak the OpenAI streaming protocols, for this project's tests and for users' own.
 * Node only (`node:http`): the main entry point never imports this module.
 *
 * @packageDocumentation
 * @module openai-rx/testing
 */
export * from './http-server.js';
export * from './transcripts.js';
export * from './ws-server.js';
