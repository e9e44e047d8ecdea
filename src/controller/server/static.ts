import { constants, createReadStream, realpathSync, statSync } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../../protocol/errors.js';

/**
 * A directory of static files served under one path prefix (`/zac/`) on the API's own origin: a web console built
 * for "the controller is at my origin" (OpenZiti's ZAC) then needs no server of its own. Read-only, GET and HEAD,
 * nothing outside the directory: every segment is decoded once and checked, and the resolved real path (symbolic
 * links followed) must stay under the directory's real path.
 */
export interface StaticSite {
  /** The prefix without a trailing slash, e.g. `/zac`. */
  readonly mount: string;
  /** Whether a request path belongs to the site (the prefix itself or anything under it). */
  owns(pathname: string): boolean;
  /** Answers one request for a path the site owns; errors are ApiErrors for the pipeline's one error path. */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void>;
}

export interface StaticSiteOptions {
  /** Default `/zac`. */
  mount?: string;
  /** Larger files are not served (404, logged): a directory pointed at by mistake cannot stream gigabytes. */
  maxFileBytes?: number;
  log?: (line: string) => void;
}

export const DEFAULT_MAX_STATIC_FILE_BYTES = 64 * 1024 * 1024;

/** A directory that cannot be served: a mistake of the operator's, told without a stack trace. */
export class StaticSiteError extends Error {
  override name = 'StaticSiteError';
}

/**
 * Content types by extension, for what a built single-page application holds. Anything else goes out as
 * application/octet-stream; `nosniff` keeps a browser from guessing otherwise.
 */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.eot': 'application/vnd.ms-fontobject',
  '.wasm': 'application/wasm',
  '.pdf': 'application/pdf',
};

export function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

/** Duplicate slashes collapsed (as the API router does), the trailing one kept: `/zac/` is the page, `/zac` is not. */
const collapse = (path: string) => path.replace(/\/{2,}/g, '/');

const notFound = (path: string) =>
  new ApiError('NOT_FOUND', { cause: { code: 'UNHANDLED', message: `no file for ${path}` } });

/**
 * The path under the mount as checked segments, or an error: `..`, `.`, empty-after-decoding, and segments that
 * decode to a separator, a backslash or NUL are refused (400) rather than resolved, so `%2e%2e` and `..%2f` are
 * refused as `..` is. Segments starting with a dot (`.env`, `.git`) are never served.
 */
export function safeSegments(relative: string): string[] {
  const segments: string[] = [];
  for (const raw of relative.split('/')) {
    if (raw === '') continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      throw new ApiError('COULD_NOT_VALIDATE', {
        cause: { field: 'path', reason: 'is not valid percent-encoding', value: raw },
      });
    }
    if (seg === '.' || seg === '..' || /[/\\\0]/.test(seg)) {
      throw new ApiError('COULD_NOT_VALIDATE', {
        cause: { field: 'path', reason: 'must not leave the console directory', value: raw },
      });
    }
    if (seg.startsWith('.')) throw notFound(relative);
    segments.push(seg);
  }
  return segments;
}

/**
 * Serves `dir` under `mount`. Checks at once that the directory exists and holds `index.html`, so a wrong
 * `--console` fails the start instead of every page.
 */
export function createStaticSite(dir: string, options: StaticSiteOptions = {}): StaticSite {
  const mount = (options.mount ?? '/zac').replace(/\/+$/, '');
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_STATIC_FILE_BYTES;
  const log = options.log ?? (() => {});
  let root: string;
  try {
    root = realpathSync(dir);
    if (!statSync(root).isDirectory()) throw new StaticSiteError(`console directory ${dir} is not a directory`);
    if (!statSync(join(root, 'index.html')).isFile())
      throw new StaticSiteError(`console directory ${dir} has no index.html`);
  } catch (err) {
    if (err instanceof StaticSiteError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new StaticSiteError(
      code === 'ENOENT'
        ? `console directory ${dir} has no index.html (is it a built web console?)`
        : `console directory ${dir}: ${code ?? String(err)}`,
    );
  }
  const rootPrefix = root.endsWith(sep) ? root : root + sep;

  /** The real path of a candidate if it is a regular file inside the root; undefined when there is none. */
  async function resolveInside(segments: string[]): Promise<string | undefined> {
    let real: string;
    try {
      real = await realpath(join(root, ...segments));
    } catch {
      return undefined;
    }
    // A symbolic link inside the directory that points out of it is treated as absent.
    if (!real.startsWith(rootPrefix)) return undefined;
    return real;
  }

  async function send(req: IncomingMessage, res: ServerResponse, file: string, logicalPath: string): Promise<boolean> {
    // O_NOFOLLOW is moot after realpath, but opening once and checking the opened file closes the race between
    // the check and the read (a file swapped for a directory or a giant one in between).
    const handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)).catch(() => undefined);
    if (!handle) return false;
    let streaming = false;
    try {
      const st = await handle.stat();
      if (!st.isFile()) return false;
      if (st.size > maxFileBytes) {
        log(`console: ${logicalPath} is ${st.size} bytes, over the ${maxFileBytes}-byte limit: not served`);
        throw notFound(logicalPath);
      }
      const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
      const isHtml = file.endsWith('.html') || file.endsWith('.htm');
      res.setHeader('content-type', contentTypeFor(file));
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'same-origin');
      res.setHeader('x-frame-options', 'SAMEORIGIN');
      res.setHeader('etag', etag);
      // The page must always be re-checked (it names the current bundles); the rest revalidates hourly.
      res.setHeader('cache-control', isHtml ? 'no-cache' : 'public, max-age=3600');
      if (req.headers['if-none-match'] === etag) {
        res.statusCode = 304;
        res.end();
        return true;
      }
      res.statusCode = 200;
      res.setHeader('content-length', st.size);
      if (req.method === 'HEAD') {
        res.end();
        return true;
      }
      if (st.size === 0) {
        res.end();
        return true;
      }
      streaming = true;
      const stream = createReadStream('', { fd: handle, start: 0, end: st.size - 1, autoClose: true });
      // A client that goes away mid-file ends the stream; nothing to report.
      await pipeline(stream, res).catch(() => res.destroy());
      return true;
    } finally {
      if (!streaming) await handle.close();
    }
  }

  return {
    mount,
    owns(pathname) {
      const p = collapse(pathname);
      return p === mount || p.startsWith(`${mount}/`);
    },
    async serve(req, res, rawPathname) {
      const pathname = collapse(rawPathname);
      const method = req.method ?? 'GET';
      if (method !== 'GET' && method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        throw new ApiError('METHOD_NOT_ALLOWED');
      }
      // `/zac` itself: the page's relative URLs resolve against `/zac/`, so send the browser there.
      if (pathname === mount) {
        res.statusCode = 301;
        res.setHeader('location', `${mount}/`);
        res.end();
        return;
      }
      const segments = safeSegments(pathname.slice(mount.length + 1));
      if (segments.length > 0) {
        const file = await resolveInside(segments);
        if (file && (await send(req, res, file, pathname))) return;
      }
      // Client-side routes (`/zac/identities/abc`) have no file: the application's page answers them and routes
      // itself. A missing asset (a name with an extension) is a real 404, not a page that would parse as script.
      const last = segments[segments.length - 1];
      if (last !== undefined && extname(last) !== '') throw notFound(pathname);
      const index = await resolveInside(['index.html']);
      if (index && (await send(req, res, index, `${mount}/index.html`))) return;
      throw notFound(pathname);
    },
  };
}
