// Recipe: an Angular-style service (no Angular dependency) exposing the answer as Observables for
// `async` pipes, and as a signal-like getter. In Angular: `@Injectable({ providedIn: 'root' })` on the
// class, `{{ chat.text$ | async }}` in a template, or `toSignal(chat.text$, { initialValue: '' })`.
import { BehaviorSubject, catchError, concat, defer, distinctUntilChanged, filter, firstValueFrom, map, of, shareReplay, Subject, switchMap, takeUntil, tap, type Observable } from 'rxjs';
import { outputText, streamResponse, type ClientConfig } from '../index.js';

export type ChatState =
  | { readonly status: 'idle'; readonly text: '' }
  | { readonly status: 'streaming' | 'done'; readonly text: string }
  | { readonly status: 'error'; readonly text: string; readonly error: string };

export class ChatService {
  private readonly prompts = new Subject<string>();
  private readonly destroyed = new Subject<void>();
  private current: ChatState = { status: 'idle', text: '' };

  /** The state of the latest question; a new question cancels the previous request (switchMap). */
  readonly state$: Observable<ChatState>;
  /** The answer as it grows: bind with `| async`. */
  readonly text$: Observable<string>;
  readonly busy$: Observable<boolean>;

  constructor(private readonly config: ClientConfig & { readonly model?: string }) {
    const state = new BehaviorSubject<ChatState>(this.current);
    this.prompts
      .pipe(
        switchMap((prompt) => {
          let last = '';
          return concat(
            streamResponse({ model: this.config.model ?? 'gpt-5.4-nano', input: prompt }, this.config).pipe(
              outputText(),
              tap((text) => (last = text)),
              map((text): ChatState => ({ status: 'streaming', text })),
            ),
            defer(() => of<ChatState>({ status: 'done', text: last })),
          ).pipe(catchError((e: unknown) => of<ChatState>({ status: 'error', text: last, error: e instanceof Error ? e.message : String(e) })));
        }),
        takeUntil(this.destroyed),
      )
      .subscribe((s) => {
        this.current = s;
        state.next(s);
      });
    this.state$ = state.asObservable();
    this.text$ = this.state$.pipe(map((s) => s.text), distinctUntilChanged(), shareReplay({ bufferSize: 1, refCount: true }));
    this.busy$ = this.state$.pipe(map((s) => s.status === 'streaming'), distinctUntilChanged());
  }

  ask(prompt: string): void {
    this.prompts.next(prompt);
  }

  /** Signal-style read of the latest state (what `toSignal(state$)` would give). */
  state(): ChatState {
    return this.current;
  }

  /** `ngOnDestroy`: cancels the request in flight. */
  destroy(): void {
    this.destroyed.next();
    this.destroyed.complete();
  }
}

/** Asks one question, as a component would, and waits for the answer. */
export async function main(config: ClientConfig & { readonly model?: string } = {}) {
  const chat = new ChatService(config);
  const seen: string[] = [];
  const sub = chat.text$.subscribe((t) => seen.push(t));
  const done = firstValueFrom(chat.state$.pipe(filter((s) => s.status === 'done' || s.status === 'error')));
  chat.ask('Why reactive streams?');
  const final = await done;
  sub.unsubscribe();
  chat.destroy();
  return { final, seen, state: chat.state() };
}
