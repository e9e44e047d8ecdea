// TLS sessions kept across runs, so that a command resumes the connection of the one before instead of making a
// full handshake. A full handshake is what a short command paid most for: verifying the controller's chain needs a
// certificate store, and Node builds one (parsing its ~140 bundled root certificates, ~18 ms) before it can add even
// a profile's own CA. A resumed session is authenticated by the secret both sides kept from a verified handshake,
// so it needs no store (transport.ts); a controller that no longer accepts it gets a full, verified handshake.
//
// What is kept lets whoever holds it pose as the controller to this client until the session expires, so it is
// kept like a token: in the profile's directory, 0600, and only for the CA bundle that verified it.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface TlsSessionStore {
  /** The session to offer, if one was kept for this controller under the same trust. */
  resume(): Buffer | undefined;
  remember(session: Buffer): void;
  /** Drops the kept session (the controller did not accept it). */
  forget(): void;
}

interface Entry {
  /** SHA-256 of the CA bundle that verified the session's handshake, or `system` for the system store. */
  trust: string;
  session: string;
}

const FILE = 'tls-sessions.json';

/** The sessions of one controller (`origin`) trusted through `caPem` (undefined: the system store), kept in `dir`. */
export function tlsSessionStore(dir: string, origin: string, caPem: string | undefined): TlsSessionStore {
  const file = path.join(dir, FILE);
  const trust = caPem === undefined ? 'system' : createHash('sha256').update(caPem).digest('hex');
  let kept: string | undefined;

  const read = (): Record<string, Entry> => {
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, Entry>) : {};
    } catch {
      return {}; // missing or damaged: a cache only, the next verified handshake writes it again
    }
  };
  const write = (entry: Entry | undefined) => {
    const { [origin]: _old, ...others } = read();
    const all = entry ? { ...others, [origin]: entry } : others;
    // Written whole and renamed over, so that a concurrent run reads the old file or the new one, never half.
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${JSON.stringify(all)}\n`, { mode: 0o600 });
      renameSync(temporary, file);
    } catch {
      // Not kept (a read-only directory): the next run makes a full handshake, as without this file.
      rmSync(temporary, { force: true });
    }
  };

  return {
    resume() {
      const entry = read()[origin];
      if (entry?.trust !== trust || typeof entry.session !== 'string') return undefined;
      kept = entry.session;
      return Buffer.from(entry.session, 'base64');
    },
    remember(session) {
      const encoded = session.toString('base64');
      if (encoded === kept) return;
      kept = encoded;
      write({ trust, session: encoded });
    },
    forget() {
      kept = undefined;
      write(undefined);
    },
  };
}
