import { Observable, Subscription } from 'rxjs';
import { ENGINE_EVENT_TYPES, type EngineEvent, type EngineEventOf, type EngineEventType } from './events.js';
import { FanOut } from './fan-out.js';

/**
 * The engine's events to their listeners: every event to `all`, and each to the listeners of its type
 * (`of`). `wants(type)` says whether anyone listens to a type, so that an event nobody would read is
 * not built at all (RxJS's own advice: one subject per key, not a `filter` on one stream that still has
 * every event made).
 */
export class EventStreams {
  private readonly every = new FanOut<EngineEvent>();
  private readonly byType = Object.fromEntries(ENGINE_EVENT_TYPES.map((type) => [type, new FanOut<EngineEvent>()])) as Record<EngineEventType, FanOut<EngineEvent>>;

  /** Every event, in order. */
  readonly all: Observable<EngineEvent> = this.every.observable;

  /** The events of the given types only, in order; completes when the streams do. */
  of<T extends EngineEventType>(...types: T[]): Observable<EngineEventOf<T>> {
    const wanted = [...new Set(types)];
    return new Observable<EngineEventOf<T>>((subscriber) => {
      const subscriptions = new Subscription();
      for (const type of wanted) {
        subscriptions.add(
          this.byType[type].observable.subscribe({
            next: (event) => subscriber.next(event as EngineEventOf<T>),
            complete: () => subscriber.complete(),
          }),
        );
      }
      return subscriptions;
    });
  }

  /** Whether anyone listens to events of `type` (on `all` or `of`). */
  wants(type: EngineEventType): boolean {
    return this.every.observed || this.byType[type].observed;
  }

  /** Hands an event to every listener of all events and of its type (build it only when `wants` its type). */
  publish(event: EngineEvent): void {
    this.every.next(event);
    this.byType[event.type].next(event);
  }

  /** Completes every stream; later listeners complete at once. */
  complete(): void {
    this.every.complete();
    for (const type of ENGINE_EVENT_TYPES) this.byType[type].complete();
  }
}
