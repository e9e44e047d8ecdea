/** What a LinkedList holds: each item carries its own two links, so linking and unlinking allocate nothing. */
export interface Linked<T> {
  before: T | undefined;
  after: T | undefined;
}

/**
 * A doubly linked list of items that carry their links, for collections that change at every request. A Map or a
 * Set living as long as the process copies its table into a new one as entries come and go, and each table it
 * leaves keeps pointing at the next one and at the entries it held: once one such table sits in the old
 * generation, every scavenge promotes the tables after it and what they hold, whole requests with them
 * (docs/performance.md). An item taken out loses both links, so one that outlived a scavenge holds nothing of the
 * items after it.
 */
export class LinkedList<T extends Linked<T>> {
  private head: T | undefined;
  private tail: T | undefined;
  private count = 0;

  get first(): T | undefined {
    return this.head;
  }

  get last(): T | undefined {
    return this.tail;
  }

  get size(): number {
    return this.count;
  }

  append(item: T): void {
    item.before = this.tail;
    item.after = undefined;
    if (this.tail) this.tail.after = item;
    else this.head = item;
    this.tail = item;
    this.count++;
  }

  /** Takes out an item of this list. */
  unlink(item: T): void {
    if (item.before) item.before.after = item.after;
    else this.head = item.after;
    if (item.after) item.after.before = item.before;
    else this.tail = item.before;
    item.before = undefined;
    item.after = undefined;
    this.count--;
  }

  /** Each item from first to last; the item just given may be taken out before the walk goes on. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let item = this.head; item; ) {
      const after: T | undefined = item.after;
      yield item;
      item = after;
    }
  }
}
