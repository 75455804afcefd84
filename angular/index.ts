/**
 * Angular bindings: a Responses stream as signals ({@link responseSignals}) and a chat box's controller
 * ({@link injectResponse}) with send / stop / retry, resume after a dropped connection, and paced text
 * ({@link smoothText}). `@angular/core` is an optional peer dependency of `openai-rx`, needed only by this
 * entry point (tested with Angular 21.2, zoneless; the peer range also takes 20.x and 22.x, same APIs). Nothing
 * depends on zones, so Zone.js applications work the same.
 *
 * ```ts
 * import { injectResponse } from 'openai-rx/angular';
 *
 * @Component({ template: `<p>{{ chat.text() }}</p><button (click)="chat.send('Hi')">Ask</button>` })
 * export class ChatBox {
 *   readonly chat = injectResponse({ baseURL: '/api/v1', model: 'gpt-5.4-nano' });
 * }
 * ```
 *
 * @packageDocumentation
 * @module openai-rx/angular
 */
export { responseSignals, type ResponseSignalsOptions, type ResponseSignalsRef } from './response-signals.js';
export { injectResponse, type InjectResponseOptions, type ResponseController } from './inject-response.js';
export type { ResponseSignals, ResponseObjectSignals, ResponseStatus, SmoothOption } from './response-state.js';
export { smoothText, type SmoothTextOptions } from '../operators/smoothText.js';
