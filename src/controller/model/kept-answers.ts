import { resource } from '../../resources/index.js';
import { LruCache } from '../store/driver.js';
import type { Store } from '../store/store.js';

/** What a model declares of its answers by id that may be kept (ResourceModel.answerKept). */
export interface AnswerKept {
  /** Every resource the answer is read from: a write to any of them drops every answer kept. */
  readsFrom: readonly string[];
  /** An answer that must not be kept: one that would change with time alone. */
  unless?: (answer: Record<string, unknown>) => boolean;
}

/** How many answers are kept, and their total length in characters (about 1.6 KB an identity). */
export const KEPT_ANSWERS = 1_000;
const KEPT_ANSWER_CHARS = 4 * 1024 * 1024;

/** Reads one entity's answer by its id. */
type ReadById = (id: string) => Promise<Record<string, unknown>>;

/**
 * One resource's answers by id, as their JSON text, kept until a write to any resource they are read from. A GET by
 * id asked again then costs no statement, no presenter and no `JSON.stringify` (docs/performance.md).
 *
 * Kept only while this controller is the database's one writer (Store.soleWriterEpoch): controllers sharing a
 * database are not told of each other's inserts of every resource an answer reads (an API session made elsewhere),
 * so there every answer is read. A write drops every answer, told both when it is made and when it commits; an
 * answer whose read overlapped a drop is handed on but not kept, since on PostgreSQL a read may still see the state
 * before a commit it finishes after. Bounded in count and size, the least recently asked going first; an answer is
 * kept only when its id was asked for again while it would still be kept (RecentMisses).
 *
 * The store is given as a function and first asked for at the first answer: routes are also built for runtimes that
 * have none (the served spec's), and nothing is kept, so no write need be heard, before an answer is.
 */
export class KeptAnswers {
  private answers: LruCache<string, string>;
  /** Counts drops: an answer is kept only when none happened while it was read. */
  private drops = 0;
  private epoch: number | undefined;
  private readonly recentMisses: RecentMisses;
  private store: Pick<Store, 'onWrite' | 'soleWriterEpoch'> | undefined;

  constructor(
    private readonly storeOf: () => Pick<Store, 'onWrite' | 'soleWriterEpoch'>,
    private readonly kept: AnswerKept,
    private readonly read: ReadById,
    private readonly limits = { count: KEPT_ANSWERS, chars: KEPT_ANSWER_CHARS },
  ) {
    for (const name of kept.readsFrom) resource(name);
    this.recentMisses = new RecentMisses(limits.count);
    this.answers = this.empty();
  }

  /** The answer to `id` as JSON text: the one kept, or one read, kept when it may be. */
  answer(id: string): Promise<string> | string {
    const epoch = this.listening().soleWriterEpoch;
    if (epoch !== this.epoch) {
      this.drop();
      this.epoch = epoch;
    }
    if (epoch === undefined) return this.read(id).then((answer) => JSON.stringify(answer));
    return this.answers.get(id) ?? this.readAndKeep(id);
  }

  private listening(): Pick<Store, 'onWrite' | 'soleWriterEpoch'> {
    if (this.store) return this.store;
    const store = this.storeOf();
    store.onWrite((event) => {
      if (event.resource === '*' || this.kept.readsFrom.includes(event.resource)) this.drop();
    });
    this.store = store;
    return store;
  }

  private async readAndKeep(id: string): Promise<string> {
    const drops = this.drops;
    const askedAgain = this.recentMisses.again(id);
    const answer = await this.read(id);
    const text = JSON.stringify(answer);
    if (askedAgain && drops === this.drops && !this.kept.unless?.(answer)) this.answers.set(id, text);
    return text;
  }

  private drop(): void {
    this.drops++;
    // A new cache rather than one emptied entry by entry: drops are rare next to reads.
    if (this.answers.size !== 0) this.answers = this.empty();
  }

  private empty(): LruCache<string, string> {
    return new LruCache<string, string>(this.limits.count, undefined, {
      maxWeight: this.limits.chars,
      weigh: (_id, text) => text.length,
    });
  }
}

/**
 * Which ids missed lately, so that an answer is kept only once its id is asked for again within as many misses as
 * answers are kept: ids asked for once each in turn, more of them than are kept, are then never kept. Keeping each
 * until it went cost more than reading it (a kept answer outlives the young generation, and its going makes work for
 * the old one: docs/performance.md). A fixed table of hashes, so that noting a miss allocates nothing; two ids of one
 * slot only forget each other.
 */
export class RecentMisses {
  private readonly hashes: Int32Array;
  /** The miss count at each slot's last miss, modulo 2^32 (the differences are taken so too). */
  private readonly at: Uint32Array;
  private readonly mask: number;
  private misses = 0;

  constructor(private readonly window: number) {
    // Four slots an id of the window: one id rarely takes the slot of another asked for within it.
    const size = 2 ** Math.ceil(Math.log2(Math.max(4 * window, 16)));
    this.hashes = new Int32Array(size);
    this.at = new Uint32Array(size);
    this.mask = size - 1;
  }

  /** Notes a miss of `id`: whether it missed within the window before this. */
  again(id: string): boolean {
    const hash = hashOf(id);
    const slot = hash & this.mask;
    this.misses = (this.misses + 1) >>> 0;
    const again = this.hashes[slot] === hash && (this.misses - this.at[slot]) >>> 0 <= this.window;
    this.hashes[slot] = hash;
    this.at[slot] = this.misses;
    return again;
  }
}

/** FNV-1a of the text's UTF-16 code units: 32 bits, cheap and well spread for ids. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash | 0;
}
