import { Observable, type Subscriber } from 'rxjs';

/**
 * One stream of values to any number of subscribers: an RxJS Subject's `next`, `complete` and `observed`,
 * for the hot paths (a pushed tick, an engine event). Its `next` is an indexed loop over an array that is
 * replaced when someone subscribes or unsubscribes (rare), not copied or iterated with an iterator per
 * value: RxJS's Node build is ES5, and its Subject walks the observers with a downlevelled iterator that
 * allocates on every value.
 *
 * As with a Subject: a subscriber added during a `next` gets the values after it; one that unsubscribes
 * during a `next` gets nothing more (an RxJS subscriber ignores values once unsubscribed); a subscriber's
 * error does not reach the others (RxJS reports it); after `complete`, new subscribers complete at once.
 */
export class FanOut<T> {
  private subscribers: ReadonlyArray<Subscriber<T>> = [];
  private completed = false;

  /** The stream, for subscribers. */
  readonly observable: Observable<T> = new Observable<T>((subscriber) => {
    if (this.completed) {
      subscriber.complete();
      return undefined;
    }
    this.subscribers = [...this.subscribers, subscriber];
    return () => {
      this.subscribers = this.subscribers.filter((candidate) => candidate !== subscriber);
    };
  });

  /** Whether anyone subscribes now. */
  get observed(): boolean {
    return this.subscribers.length > 0;
  }

  next(value: T): void {
    const subscribers = this.subscribers;
    for (let index = 0; index < subscribers.length; index += 1) (subscribers[index] as Subscriber<T>).next(value);
  }

  /** Completes every subscriber; the stream then stays complete. */
  complete(): void {
    if (this.completed) return;
    this.completed = true;
    const subscribers = this.subscribers;
    this.subscribers = [];
    for (const subscriber of subscribers) subscriber.complete();
  }
}
