// Which controllers serve the network: each keeps its row of `controllers` fresh with a heartbeat, and a row whose
// heartbeat stopped is offline. Several controllers on one database each write their own row; one alone writes one.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resource } from '../../resources/index.js';
import type { ReadStore } from '../store/read-only.js';

/** How often a controller says it still serves. */
export const HEARTBEAT_INTERVAL_MS = 5_000;
/** A controller not heard from for this long is offline: three heartbeats missed. */
export const OFFLINE_AFTER_MS = 3 * HEARTBEAT_INTERVAL_MS;

/** Where a controller sharing its database keeps its own id, so that a restart is the same member again. */
const ID_FILE = 'controller-id';

/**
 * The id of a controller that shares its database: `firstId` at its first start, then kept in its data directory.
 */
export async function loadOrCreateControllerId(dataDir: string, firstId: string): Promise<string> {
  const file = join(dataDir, ID_FILE);
  try {
    const stored = (await readFile(file, 'utf8')).trim();
    if (/^[A-Za-z0-9._-]{1,64}$/.test(stored)) return stored;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const id = firstId;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${id}\n`, { mode: 0o600 });
  return id;
}

/** The server certificates of the controllers in `controllers`, which sign the enrollment JWTs each issues. */
export async function memberCertificates(store: ReadStore): Promise<string[]> {
  const rows = await store.repoFor(resource('controller')).findAll({}, { columns: ['certPem'] });
  return rows.flatMap((row) => (typeof row.certPem === 'string' && row.certPem ? [row.certPem] : []));
}

/**
 * What membership adds to a controller's read model. Online: the controller answering (it serves this very
 * request), or one heard from within OFFLINE_AFTER_MS. A row written before heartbeats existed was last seen when
 * it started.
 */
export function membershipOf(
  row: { id: string; [field: string]: unknown },
  selfId: string,
  now: Date,
): { isOnline: boolean; lastSeenAt: string } {
  const lastSeenAt = (row.lastSeenAt ?? row.lastJoinedAt) as string;
  return { isOnline: row.id === selfId || now.getTime() - Date.parse(lastSeenAt) < OFFLINE_AFTER_MS, lastSeenAt };
}

/**
 * Refreshes this controller's `lastSeenAt` every HEARTBEAT_INTERVAL_MS until stopped, with `write` (the controller
 * gives its write path). A beat that fails (the database away) is logged once per outage; the next one that
 * succeeds shows the controller online again.
 */
export function startHeartbeat(
  write: (lastSeenAt: string) => Promise<void>,
  opts: { clock: () => Date; log: (line: string) => void },
): { stop(): void } {
  let failing = false;
  const beat = async () => {
    try {
      await write(opts.clock().toISOString());
      if (failing) opts.log('membership: heartbeat written again');
      failing = false;
    } catch (err) {
      if (!failing) opts.log(`membership: heartbeat failed (shown offline to the others until one succeeds): ${err}`);
      failing = true;
    }
  };
  const timer = setInterval(() => void beat(), HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
