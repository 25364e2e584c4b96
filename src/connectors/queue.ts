// An unbounded async queue with timed reads: transports push what they receive, the turn engine reads it with deadlines.

/** The outcome of a timed AsyncQueue read: an item, a timeout, or the queue closed (with its error). */
export type QueueRead<T> = { kind: "item"; item: T } | { kind: "timeout" } | { kind: "closed"; error: Error | null };

/** An unbounded async queue with timed reads: transports push what they receive, the turn engine reads it with deadlines. */
export class AsyncQueue<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: ((r: QueueRead<T>) => void) | null = null;
  private closedWith: { error: Error | null } | null = null;

  push(item: T): void {
    if (this.closedWith) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w({ kind: "item", item });
    } else this.items.push(item);
  }

  /** No more items; readers get what is queued, then `closed` with the error (null = normal end). */
  close(error: Error | null = null): void {
    if (this.closedWith) return;
    this.closedWith = { error };
    if (this.waiter && this.head >= this.items.length) {
      const w = this.waiter;
      this.waiter = null;
      w({ kind: "closed", error });
    }
  }

  get closed(): boolean {
    return this.closedWith !== null;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** Discard everything queued (deepeval's drain_downlink). */
  drain(): T[] {
    const out = this.items.slice(this.head);
    this.items = [];
    this.head = 0;
    return out;
  }

  /** The next item, waiting at most `timeoutMs` (Infinity = no limit); one reader at a time. */
  next(timeoutMs = Infinity, signal?: AbortSignal): Promise<QueueRead<T>> {
    if (this.head < this.items.length) {
      const item = this.items[this.head++];
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      return Promise.resolve({ kind: "item", item });
    }
    if (this.closedWith) return Promise.resolve({ kind: "closed", error: this.closedWith.error });
    if (this.waiter) throw new Error("AsyncQueue: only one reader may wait at a time");
    if (timeoutMs <= 0 || signal?.aborted) return Promise.resolve({ kind: "timeout" });
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (r: QueueRead<T>) => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(r);
      };
      const onAbort = () => {
        this.waiter = null;
        finish({ kind: "timeout" });
      };
      this.waiter = finish;
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          if (this.waiter === finish) this.waiter = null;
          finish({ kind: "timeout" });
        }, timeoutMs);
      }
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const r = await this.next();
      if (r.kind !== "item") return;
      yield r.item;
    }
  }
}
