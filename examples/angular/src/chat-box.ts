import { ChangeDetectionStrategy, Component, signal } from '@angular/core';
import { injectResponse } from 'openai-rx/angular';

/**
 * The answer streams from the application's own backend (`/v1`, same origin: the gateway, or any route that
 * serves Responses SSE), never from the provider with a key in the page. Stop cancels the request upstream.
 */
@Component({
  selector: 'chat-box',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <h1>Ask</h1>
    <form (submit)="ask($event)">
      <input id="prompt" [value]="prompt()" (input)="prompt.set($any($event.target).value)" placeholder="Your question" />
      <button id="send" type="submit" [disabled]="chat.busy()">Send</button>
      <button id="stop" type="button" (click)="chat.stop()" [disabled]="!chat.busy()">Stop</button>
      <button id="retry" type="button" (click)="chat.retry()" [disabled]="chat.busy() || chat.input() === undefined">Retry</button>
    </form>
    <p id="status" [attr.data-status]="chat.status()">
      {{ chat.status() }}@if (chat.reconnecting()) { · reconnecting… }
    </p>
    <p id="answer">{{ chat.text() }}</p>
    @if (chat.error(); as e) { <p id="error">{{ message(e) }}</p> }
  `,
  styles: `
    :host { display: block; font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; }
    input { width: 60%; padding: .3rem; }
    #answer { white-space: pre-wrap; color: #0b5394; min-height: 6rem; }
    #status { color: #666; }
    #error { color: #b00; }
  `,
})
export class ChatBox {
  readonly prompt = signal('Why reactive streams?');
  readonly chat = injectResponse({
    baseURL: new URL('/v1', location.href).href,
    model: 'gpt-5.4-nano',
    resume: true,
    smooth: { delayMs: 15 },
  });

  ask(event: Event): void {
    event.preventDefault();
    this.chat.send(this.prompt());
  }

  message(e: unknown): string {
    return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
}
