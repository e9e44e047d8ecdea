import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { StoreUnavailableError } from './driver.js';

/** The first bytes of every SQLite database file. */
const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;

/**
 * Refuses a database file that exists but cannot be the controller's database: empty (SQLite would silently start
 * a new one there, and the controller a new install with a new admin), shorter than its header says (truncated),
 * or not SQLite at all. A missing file is fine: that is a first start.
 */
export function refuseDamagedDatabase(file: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const problem = damage(fd);
    if (problem) {
      throw new StoreUnavailableError(
        `the database ${file} ${problem}: restore it from a backup, or move it away to start a new, empty controller`,
      );
    }
  } finally {
    closeSync(fd);
  }
}

function damage(fd: number): string | undefined {
  const size = fstatSync(fd).size;
  if (size === 0) return 'is empty (0 bytes)';
  const header = Buffer.alloc(HEADER_BYTES);
  const read = readSync(fd, header, 0, HEADER_BYTES, 0);
  if (read < HEADER_BYTES || !header.subarray(0, MAGIC.length).equals(MAGIC)) return 'is not a SQLite database';
  // Page size at offset 16 (1 means 65536); page count at 28, valid when the counter at 92 matches the one at 24.
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = header.readUInt32BE(92) === header.readUInt32BE(24) ? header.readUInt32BE(28) : 0;
  if (pageSize < 512 || size % pageSize !== 0 || size < pages * pageSize) return 'is truncated';
  return undefined;
}
