import type { Driver } from './driver.js';
import { WRITE_VERSIONS_TABLE } from './write-versions.js';

/**
 * What lets controllers sharing a database keep facts in memory as a lone controller does: before a request uses
 * anything kept, the controller reads every resource's write version (store/write-versions.ts: bumped in the
 * transaction of every write, by any controller) and drops what was kept of each resource whose version moved.
 * The versions are read after the request arrived, so every write acknowledged before it is seen: no kept value
 * older than the request can answer it.
 *
 * Requests arriving together share one read, but only one that began after each of them arrived: a read already
 * under way when a request arrives may have missed a write acknowledged just before, so that request waits for the
 * next.
 */
export class WriteVersionWatch {
  private seen: Map<string, string> | undefined;
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;

  /**
   * @param read every resource's version, as committed now
   * @param changed called for each resource whose version moved ('*': any may have, as on the first read)
   */
  constructor(
    private readonly read: () => Promise<Map<string, string>>,
    private readonly changed: (resource: string) => void,
  ) {}

  /**
   * Settles once versions read after this call have dropped what they make stale. When they cannot be read (the
   * database away), everything kept is dropped instead: the request goes on, and what it needs of the database it
   * reads itself (a request that needs none, such as GET /version, is still answered).
   */
  catchUp(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running.then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<void> {
    const check = this.check().finally(() => {
      if (this.running === check) this.running = undefined;
    });
    this.running = check;
    return check;
  }

  private async check(): Promise<void> {
    let versions: Map<string, string>;
    try {
      versions = await this.read();
    } catch {
      this.seen = undefined;
      return this.changed('*');
    }
    const seen = this.seen;
    this.seen = versions;
    // Any difference drops what was kept, even a version going back (a database restored from a backup).
    if (!seen) return this.changed('*');
    for (const [resource, version] of versions) if (seen.get(resource) !== version) this.changed(resource);
    for (const resource of seen.keys()) if (!versions.has(resource)) this.changed(resource);
  }
}

/**
 * Every resource's version as last committed: a resource never written has none. Controllers sharing the database
 * read them to learn what the others changed.
 */
export async function readWriteVersions(driver: Driver): Promise<Map<string, string>> {
  const rows = await driver.all<{ resource: string; version: string }>(
    `SELECT "resource", "version"::text AS "version" FROM "${WRITE_VERSIONS_TABLE}"`,
  );
  return new Map(rows.map((row) => [row.resource, row.version]));
}
