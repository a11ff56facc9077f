/**
 * A run's events for any number of listeners: the run pushes LoopEvents, and every iterator gets
 * every event from the start (or from a position it names) to the end, including one that begins
 * after the run ended. The events are kept for as long as the stream is: a run's are few, and a
 * host's second listener (a second browser tab, a late log writer) must not find them gone.
 */
export class EventStream<T> implements AsyncIterable<T> {
  private readonly log: T[] = [];
  /** Iterators that have read everything so far and wait for the next event or the end. */
  private readonly waiting = new Set<() => void>();
  private closed = false;

  push(value: T): void {
    if (this.closed) return;
    this.log.push(value);
    this.wake();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wake();
  }

  /** The events from position `start` (0: the first) on, then each new one until the run ends. */
  from(start: number): AsyncIterable<T> {
    return { [Symbol.asyncIterator]: () => this.iterator(Math.max(0, Math.floor(start))) };
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.iterator(0);
  }

  private wake(): void {
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const resume of waiting) resume();
  }

  private iterator(start: number): AsyncIterator<T> {
    let position = start;
    let finished = false;
    const next = (): Promise<IteratorResult<T>> => {
      if (finished) return Promise.resolve({ value: undefined, done: true });
      if (position < this.log.length) return Promise.resolve({ value: this.log[position++] as T, done: false });
      if (this.closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise<void>((resume) => this.waiting.add(resume)).then(next);
    };
    // A listener that stops early (`break`) ends only its own iterator.
    const stop = (): Promise<IteratorResult<T>> => {
      finished = true;
      return Promise.resolve({ value: undefined, done: true });
    };
    return { next, return: stop };
  }
}
