import type { ServiceUpdateStamps } from '../client-state.js';
import type { ServiceUpdateStampRows } from '../store/service-update-stamps.js';

/** The stamp every identity shares: no identity has this id. */
const EVERYONE = '*';

/**
 * The service update stamps of controllers sharing a database, kept there (Store.serviceUpdateStamps): a change
 * written through one controller moves the check an SDK polls on any other. The stamps are written in the writes'
 * transactions (the hooks of model/service-updates.ts), so they commit with what they stamp.
 */
export class SharedServiceUpdateStamps implements ServiceUpdateStamps {
  constructor(private readonly rows: ServiceUpdateStampRows) {}

  async touch(identityIds: Iterable<string>, at: Date): Promise<void> {
    await this.rows.touch([...identityIds], at.getTime());
  }

  async touchEveryone(at: Date): Promise<void> {
    await this.rows.touch([EVERYONE], at.getTime());
  }

  /** Never moved: the beginning of time, which the check raises to the API session's start. */
  async lastChangeAt(identityId: string): Promise<Date> {
    return new Date((await this.rows.latest(identityId)) ?? 0);
  }

  async forget(identityId: string): Promise<void> {
    await this.rows.forget(identityId);
  }
}
