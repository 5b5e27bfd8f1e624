// The cache's window of recent events: appended in revision order, evicted from the front when older than the
// window or beyond the size cap. The newest event is never evicted, so an idle resource keeps its last change and a
// watch from any revision since stays servable (as kube's capacity-based ring behaves).

export interface RingEvent {
  readonly revision: number;
  readonly time: number;
}

export interface Ring<E extends RingEvent> {
  push(event: E): void;
  /** Drops events older than now - windowMs (and beyond the cap); returns how many were dropped. */
  evict(now: number): number;
  /** Events with revision > after, ascending (a copy). */
  since(after: number): E[];
  first(): E | undefined;
  readonly length: number;
  clear(): void;
}

export function createRing<E extends RingEvent>(windowMs: number, maxEvents: number): Ring<E> {
  let items: E[] = [];
  let head = 0;

  function compact(): void {
    if (head > 1024 && head * 2 > items.length) {
      items = items.slice(head);
      head = 0;
    }
  }

  return {
    push(event) {
      items.push(event);
    },
    evict(now) {
      const before = head;
      const cutoff = now - windowMs;
      while (items.length - head > 1 && (items[head].time < cutoff || items.length - head > maxEvents)) {
        items[head] = undefined as unknown as E;
        head++;
      }
      const dropped = head - before;
      if (dropped > 0) compact();
      return dropped;
    },
    since(after) {
      let lo = head;
      let hi = items.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (items[mid].revision <= after) lo = mid + 1;
        else hi = mid;
      }
      return items.slice(lo);
    },
    first() {
      return head < items.length ? items[head] : undefined;
    },
    get length() {
      return items.length - head;
    },
    clear() {
      items = [];
      head = 0;
    },
  };
}
