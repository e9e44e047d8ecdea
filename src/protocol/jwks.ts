// Key sets (JWKS, RFC 7517 section 5) of external JWT signers, fetched and cached. Shared by the controller (token
// authentication) and the CLI (`ctl signer test`), so both resolve keys the same way. A fetch is bounded in time
// and size (the key set is a third party's answer), and re-fetching for an unknown `kid` happens at most once per
// interval per key set: a flood of tokens with made-up kids costs at most one fetch per interval, not one each.
// The HTTP client is the caller's (the CLI's transport, or undici itself in the controller): the protocol layer
// depends on neither half.
import { X509Certificate, type KeyObject, createPublicKey } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { Dispatcher } from 'undici';
import { setLatest } from './latest-entries.js';
import { loadUndici } from './undici.js';

export interface JwksOptions {
  /** The whole fetch (connect, headers, body) must finish within this; default 5 s (as OpenZiti). */
  timeoutMs: number;
  /** A larger answer is refused; default 256 KiB (a key set of dozens of RSA keys is a few tens of KiB). */
  maxBytes: number;
  /** At most one fetch of a key set per this interval for unknown kids (and after a failure); default 10 s. */
  minRefetchIntervalMs: number;
  /** A key set older than this is fetched again on the next use, whatever the kid; default 15 min. */
  maxAgeMs: number;
  /** At most this many key sets are kept (least recently used go first). */
  maxEntries: number;
  now: () => number;
  /** Fetches a URL's body within the limits above (`boundedFetch`); tests may count calls through it. */
  fetch: (url: string, opts: { timeoutMs: number; maxBytes: number }) => Promise<string>;
}

export const DEFAULT_JWKS_OPTIONS: Omit<JwksOptions, 'fetch'> = {
  timeoutMs: 5_000,
  maxBytes: 256 * 1024,
  minRefetchIntervalMs: 10_000,
  maxAgeMs: 15 * 60_000,
  maxEntries: 1_000,
  now: Date.now,
};

/** A key set could not be had: unreachable, too slow, too large, not a key set. The message says which. */
export class JwksError extends Error {
  override name = 'JwksError';
}

interface Entry {
  keys: Map<string, KeyObject>;
  /** When the keys were last fetched successfully (0: never). */
  fetchedAt: number;
  /** When a fetch was last started, successful or not: the refetch interval counts from here. */
  attemptedAt: number;
  /** The last failure, re-thrown to callers within the interval instead of fetching again. */
  error?: JwksError;
  inflight?: Promise<void>;
}

export class JwksCache {
  private readonly entries = new Map<string, Entry>();
  readonly options: JwksOptions;
  /** Fetches started (for tests and diagnostics). */
  fetches = 0;

  constructor(options: Partial<JwksOptions> & Pick<JwksOptions, 'fetch'>) {
    this.options = { ...DEFAULT_JWKS_OPTIONS, ...options };
  }

  /**
   * The public key of `kid` in the key set at `url`, or undefined when the set (fetched again if the kid is unknown
   * and the interval allows) has no such key. Throws JwksError when the set cannot be had at all.
   */
  async key(url: string, kid: string): Promise<KeyObject | undefined> {
    const now = this.options.now();
    let entry = this.entries.get(url);
    const fresh = entry !== undefined && entry.fetchedAt > 0 && now - entry.fetchedAt < this.options.maxAgeMs;
    if (fresh && entry!.keys.has(kid)) {
      setLatest(this.entries, url, entry!, this.options.maxEntries);
      return entry!.keys.get(kid);
    }
    if (!entry || now - entry.attemptedAt >= this.options.minRefetchIntervalMs || entry.inflight) {
      entry = await this.refresh(url, entry, now);
    }
    if (entry.fetchedAt === 0 && entry.error) throw entry.error;
    return entry.keys.get(kid);
  }

  /** Forgets every key set: the next key asked for is fetched anew, whatever the refetch interval. */
  clear(): void {
    this.entries.clear();
  }

  private async refresh(url: string, previous: Entry | undefined, now: number): Promise<Entry> {
    const entry: Entry = previous ?? { keys: new Map(), fetchedAt: 0, attemptedAt: 0 };
    setLatest(this.entries, url, entry, this.options.maxEntries);
    // Concurrent callers share one fetch.
    if (!entry.inflight) {
      entry.attemptedAt = now;
      this.fetches++;
      entry.inflight = this.load(url)
        .then((keys) => {
          entry.keys = keys;
          entry.fetchedAt = this.options.now();
          entry.error = undefined;
        })
        .catch((err: unknown) => {
          // The keys fetched before stay usable: a provider that is down for a moment does not stop every login.
          entry.error = err instanceof JwksError ? err : new JwksError(`key set ${url}: ${(err as Error).message}`);
        })
        .finally(() => {
          entry.inflight = undefined;
        });
    }
    await entry.inflight;
    return entry;
  }

  private async load(url: string): Promise<Map<string, KeyObject>> {
    const text = await this.options.fetch(url, { timeoutMs: this.options.timeoutMs, maxBytes: this.options.maxBytes });
    return parseKeySet(text, url);
  }
}

/**
 * The public keys of a key set by kid. Keys without a kid cannot be chosen by a token's header and are skipped, as
 * are symmetric keys (`oct`: a "public" key set must never hand out a secret that would verify HMAC tokens) and
 * keys meant for encryption only. A key with `x5c` is taken from its first certificate.
 */
export function parseKeySet(text: string, url = 'key set'): Map<string, KeyObject> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new JwksError(`${url} did not answer with JSON`);
  }
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new JwksError(`${url} did not answer with a key set (no "keys" array)`);
  const out = new Map<string, KeyObject>();
  for (const jwk of keys as Record<string, unknown>[]) {
    if (!jwk || typeof jwk !== 'object' || typeof jwk.kid !== 'string' || jwk.kid === '') continue;
    if (jwk.kty === 'oct' || jwk.use === 'enc') continue;
    try {
      const x5c = Array.isArray(jwk.x5c) && typeof jwk.x5c[0] === 'string' ? (jwk.x5c[0] as string) : undefined;
      const key = x5c
        ? new X509Certificate(Buffer.from(x5c, 'base64')).publicKey
        : createPublicKey({ key: publicMembers(jwk), format: 'jwk' } as Parameters<typeof createPublicKey>[0]);
      if (key.type === 'public') out.set(jwk.kid, key);
    } catch {
      // An unreadable key is skipped: the others of the set still work.
    }
  }
  return out;
}

/** Only the public members of a JWK: a private key published by mistake is still read as its public half. */
function publicMembers(jwk: Record<string, unknown>): Record<string, unknown> {
  const { kty, crv, x, y, n, e } = jwk;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined));
}

/**
 * Link-local addresses (169.254.0.0/16, fe80::/10), where clouds serve instance metadata and credentials, are never
 * fetched from, whatever the signer says (as OpenZiti): a key-set URL must not turn the controller into a way to
 * read them. Private and loopback addresses are allowed (identity providers on the same network, tests).
 */
export function isLinkLocal(address: string): boolean {
  const v4 = /^(?:::ffff:)?(\d+)\.(\d+)\.\d+\.\d+$/i.exec(address);
  if (v4) return Number(v4[1]) === 169 && Number(v4[2]) === 254;
  return /^fe[89ab][0-9a-f]:/i.test(address);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup with link-local answers taken out; none left is an error (the connection is not made). */
function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const usable = addresses.filter((a) => !isLinkLocal(a.address));
    if (usable.length === 0) {
      return callback(
        Object.assign(
          new Error(`${hostname} resolves only to link-local addresses, which key sets are never fetched from`),
          { code: 'EACCES' },
        ),
        [],
      );
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  });
}

/** What a bounded fetch needs of undici: its Agent and its request function, loaded by the caller when first used. */
export interface UndiciParts {
  Agent: new (options: { connect: never }) => Dispatcher;
  request(
    url: URL,
    opts: { dispatcher: Dispatcher } & Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method'>,
  ): Promise<Dispatcher.ResponseData>;
}

/**
 * `JwksOptions.fetch` over undici, loaded on the first fetch (one agent for every fetch after): by default the two
 * pieces of it `loadUndici` loads, which both the controller and `ctl signer test` use.
 */
export function boundedFetch(load: () => Promise<UndiciParts> = loadUndici): JwksOptions['fetch'] {
  let loaded: Promise<{ agent: Dispatcher; request: UndiciParts['request'] }> | undefined;
  return async (url, opts) => {
    loaded ??= load().then(({ Agent, request }) => ({
      agent: new Agent({ connect: { timeout: opts.timeoutMs, lookup: guardedLookup } as never }),
      request,
    }));
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isLinkLocal(host)) throw new JwksError(`key set ${url}: link-local addresses are never fetched from`);
    return fetchBounded(url, opts, await loaded);
  };
}

/** GET over undici with an overall deadline and a cap on the body (by Content-Length and while reading). */
async function fetchBounded(
  url: string,
  opts: { timeoutMs: number; maxBytes: number },
  { agent, request }: { agent: Dispatcher; request: UndiciParts['request'] },
): Promise<string> {
  // An abort of our own, cleared when done: a timer signal firing after the answer would error a finished request.
  const abort = new AbortController();
  const { signal } = abort;
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(new URL(url), {
      dispatcher: agent,
      signal,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      headers: { accept: 'application/json' },
    });
  } catch (err) {
    clearTimeout(timer);
    throw new JwksError(
      `key set ${url} could not be fetched: ` +
        `${signal.aborted ? `no answer within ${opts.timeoutMs} ms` : (err as Error).message}`,
    );
  }
  try {
    if (res.statusCode !== 200) throw new JwksError(`key set ${url} answered HTTP ${res.statusCode}`);
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > opts.maxBytes)
      throw new JwksError(`key set ${url} is larger than ${opts.maxBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > opts.maxBytes) throw new JwksError(`key set ${url} is larger than ${opts.maxBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (err) {
    if (err instanceof JwksError) throw err;
    throw new JwksError(
      `key set ${url} could not be read: ` +
        `${signal.aborted ? `no answer within ${opts.timeoutMs} ms` : (err as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
    res.body.on('error', () => {}).destroy();
  }
}
