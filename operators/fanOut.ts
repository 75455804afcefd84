import { Observable, Subscription, type OperatorFunction, type Subscriber } from 'rxjs';

/**
 * Runs several operators over one stream in a single pass and merges what they emit: each event is
 * decoded once and handed to every branch in turn. It does what `connect((e) => merge(e.pipe(a), e.pipe(b)))`
 * does, without a Subject per stream, which is most of that pattern's cost on streams of small events.
 *
 * ```
 * events:  --a-----b-----c--|
 *   fanOut(accumulateText(), collectToolCalls())
 * out:     --s-----s--t--s--|     (s: text snapshots, t: tool calls, in the order the branches emit)
 * ```
 *
 * An error of the source reaches every branch (and so the output); an error of one branch ends the output
 * and unsubscribes the source. The output completes when every branch has completed.
 *
 * ```ts
 * streamResponse(body, config).pipe(fanOut(outputText(), collectToolCalls()))
 * ```
 */
export function fanOut<T, R extends readonly unknown[]>(...branches: { readonly [K in keyof R]: OperatorFunction<T, R[K]> }): OperatorFunction<T, R[number]> {
  return (source) =>
    new Observable<R[number]>((subscriber) => {
      // Replaced, never changed in place: a branch that unsubscribes while a value is being handed out
      // (take(1), say) must not make the loop skip the next branch.
      let sinks: ReadonlyArray<Subscriber<T>> = [];
      const hub = new Observable<T>((s) => {
        sinks = [...sinks, s];
        return () => {
          sinks = sinks.filter((x) => x !== s);
        };
      });
      const subscription = new Subscription();
      let open = branches.length;
      for (const branch of branches as ReadonlyArray<OperatorFunction<T, R[number]>>) {
        subscription.add(
          branch(hub).subscribe({
            next: (v) => subscriber.next(v),
            error: (e: unknown) => subscriber.error(e),
            complete: () => {
              if (--open === 0) subscriber.complete();
            },
          }),
        );
      }
      if (open === 0) {
        subscriber.complete();
        return subscription;
      }
      subscription.add(
        source.subscribe({
          next(v) {
            const list = sinks;
            for (let i = 0; i < list.length; i++) list[i]!.next(v);
          },
          error(e: unknown) {
            for (const s of sinks) s.error(e);
          },
          complete() {
            for (const s of sinks) s.complete();
          },
        }),
      );
      return subscription;
    });
}
