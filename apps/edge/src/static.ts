import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream';
import { badRequestPage, methodNotAllowedPage, notFoundPage, sendPage } from './pages';

/**
 * Static build outputs, served by the edge from disk with no process of their own. A deployment's
 * folder does not change once built, so what was looked up is kept for a moment (STAT_TTL_MS) and
 * small files are kept in memory; a new deployment is a new folder, so nothing stale outlives it.
 */

export type StaticTarget = { root: string; spaFallback: boolean };

const STAT_TTL_MS = 2000;
const MAX_ENTRIES = 10_000;
/** Files up to this size are answered from memory after the first request. */
const MEMORY_FILE_BYTES = 128 * 1024;
const MEMORY_TOTAL_BYTES = 64 * 1024 * 1024;

/** The files of a build that carry a content hash in their name never change: browsers may keep them a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else is asked again every time (cheap: an ETag answers 304). */
const REVALIDATE = 'no-cache';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  cjs: 'text/javascript; charset=utf-8',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
  yml: 'application/yaml; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  mp4: 'video/mp4',
  webm: 'video/webm',
  ogg: 'audio/ogg',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  pdf: 'application/pdf',
  zip: 'application/zip',
  wasm: 'application/wasm',
};

type FileEntry = {
  kind: 'file';
  /** The resolved path (no symbolic link left in it), inside the root. */
  real: string;
  size: number;
  mtimeMs: number;
  etag: string;
  lastModified: string;
  type: string;
  body?: Buffer;
};
type Entry = FileEntry | { kind: 'dir' } | { kind: 'missing' };

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** `assets/index-BX7a1f_Q.js` (Vite), `_next/static/…` (Next): a name with a hash in it, in a build's asset folder. */
function isHashedAsset(relative: string): boolean {
  if (relative.startsWith('_next/static/')) return true;
  if (!relative.startsWith('assets/')) return false;
  const hash = /[-.]([A-Za-z0-9_-]{8,})\.[A-Za-z0-9]+$/.exec(relative)?.[1];
  return hash !== undefined && /[0-9A-Z_-]/.test(hash);
}

function within(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith('/') ? root : `${root}/`);
}

/** One If-None-Match value (a list, weak or not, or `*`) against the file's ETag. */
function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function notModified(req: IncomingMessage, entry: FileEntry): boolean {
  const noneMatch = req.headers['if-none-match'];
  if (noneMatch !== undefined) return etagMatches(noneMatch, entry.etag);
  const since = req.headers['if-modified-since'];
  if (since === undefined) return false;
  const time = Date.parse(since);
  return !Number.isNaN(time) && Math.floor(entry.mtimeMs / 1000) * 1000 <= time;
}

/** A single `bytes=a-b` range; null for none or one the edge does not do (several ranges: the whole file). */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

export class StaticFiles {
  #entries = new Map<string, { at: number; entry: Promise<Entry> }>();
  #roots = new Map<string, { at: number; real: Promise<string | null> }>();
  #memoryBytes = 0;

  /** The real path of a root (it may itself be a link, e.g. `current` → a build), null when it is gone. */
  #realRoot(root: string, now: number): Promise<string | null> {
    const known = this.#roots.get(root);
    if (known && now - known.at < STAT_TTL_MS) return known.real;
    const real = fs.promises.realpath(root).catch(() => null);
    if (this.#roots.size >= MAX_ENTRIES) this.#roots.clear();
    this.#roots.set(root, { at: now, real });
    return real;
  }

  #lookup(root: string, relative: string): Promise<Entry> {
    const now = Date.now();
    const key = `${root}\0${relative}`;
    const known = this.#entries.get(key);
    if (known && now - known.at < STAT_TTL_MS) return known.entry;
    const entry = this.#resolve(root, relative, now, known?.entry);
    if (this.#entries.size >= MAX_ENTRIES) this.#forget();
    this.#entries.set(key, { at: now, entry });
    return entry;
  }

  #forget(): void {
    this.#entries.clear();
    this.#memoryBytes = 0;
  }

  async #resolve(root: string, relative: string, now: number, previous?: Promise<Entry>): Promise<Entry> {
    const realRoot = await this.#realRoot(root, now);
    if (!realRoot) return { kind: 'missing' };
    let real: string;
    let stat: fs.Stats;
    try {
      real = await fs.promises.realpath(path.join(realRoot, relative));
      // A symbolic link that leads out of the build folder is not followed: as if nothing were there.
      if (!within(realRoot, real)) return { kind: 'missing' };
      stat = await fs.promises.stat(real);
    } catch {
      return { kind: 'missing' };
    }
    if (stat.isDirectory()) return { kind: 'dir' };
    if (!stat.isFile()) return { kind: 'missing' };
    const old = previous ? await previous.catch(() => undefined) : undefined;
    if (old?.kind === 'file' && old.real === real && old.size === stat.size && old.mtimeMs === stat.mtimeMs) return old;
    return {
      kind: 'file',
      real,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      etag: `"${stat.size.toString(36)}-${Math.floor(stat.mtimeMs).toString(36)}"`,
      lastModified: new Date(stat.mtimeMs).toUTCString(),
      type: TYPES[extensionOf(real)] ?? 'application/octet-stream',
    };
  }

  async serve(req: IncomingMessage, res: ServerResponse, host: string, target: StaticTarget, pathPrefix: string) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendPage(req, res, methodNotAllowedPage('GET, HEAD'));
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const urlPath = query === -1 ? url : url.slice(0, query);
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return sendPage(req, res, badRequestPage('The path is not valid.'));
    }
    if (decoded.includes('\0')) return sendPage(req, res, badRequestPage('The path is not valid.'));
    // The route's prefix is where the build is mounted: `/docs/a.css` of a `/docs` route is `a.css`.
    const inRoute = pathPrefix === '/' ? decoded : decoded.slice(pathPrefix.replace(/\/$/, '').length) || '/';
    const segments: string[] = [];
    for (const segment of inRoute.split('/')) {
      if (segment === '' || segment === '.') continue;
      if (segment === '..') return sendPage(req, res, badRequestPage('The path leads outside the site.'));
      // Dotfiles (.env, .git) are never served; .well-known is what the web expects to find.
      if (segment.startsWith('.') && segment !== '.well-known') return this.#notFound(req, res, host, target, decoded, null);
      segments.push(segment);
    }
    const relative = segments.join('/');
    const entry = await this.#lookup(target.root, relative);
    if (entry.kind === 'file') return this.#send(req, res, entry, relative);
    if (entry.kind === 'dir') {
      if (!urlPath.endsWith('/')) {
        // Relative links of the folder's index.html need the slash; never a `//host` redirect.
        const location = `/${urlPath.replace(/^\/+/, '')}/${query === -1 ? '' : url.slice(query)}`;
        res.writeHead(301, { location, 'content-length': 0, 'cache-control': REVALIDATE });
        return res.end();
      }
      const index = relative ? `${relative}/index.html` : 'index.html';
      const indexEntry = await this.#lookup(target.root, index);
      if (indexEntry.kind === 'file') return this.#send(req, res, indexEntry, index);
    }
    return this.#notFound(req, res, host, target, decoded, segments[segments.length - 1] ?? '');
  }

  /** `last`: the last segment of the path, for the SPA fallback; null when the fallback must not apply. */
  async #notFound(
    req: IncomingMessage,
    res: ServerResponse,
    host: string,
    target: StaticTarget,
    shown: string,
    last: string | null,
  ) {
    if (target.spaFallback && last !== null && extensionOf(last) === '') {
      // Client-side routing: /settings/profile is a page of the app, which index.html knows.
      const index = await this.#lookup(target.root, 'index.html');
      if (index.kind === 'file') return this.#send(req, res, index, 'index.html');
    }
    const page = await this.#lookup(target.root, '404.html');
    if (page.kind === 'file') return this.#send(req, res, page, '404.html', 404);
    sendPage(req, res, notFoundPage(host, shown));
  }

  async #send(req: IncomingMessage, res: ServerResponse, entry: FileEntry, relative: string, status = 200) {
    const headers: Record<string, string | number> = {
      'content-type': entry.type,
      etag: entry.etag,
      'last-modified': entry.lastModified,
      'cache-control': status === 200 && isHashedAsset(relative) ? IMMUTABLE : REVALIDATE,
      'x-content-type-options': 'nosniff',
      'accept-ranges': 'bytes',
    };
    if (status === 200 && notModified(req, entry)) {
      delete headers['content-type'];
      res.writeHead(304, headers);
      return res.end();
    }
    const ifRange = req.headers['if-range'];
    const range =
      status === 200 && (ifRange === undefined || ifRange === entry.etag) ? parseRange(req.headers.range, entry.size) : null;
    if (range === 'unsatisfiable') {
      res.writeHead(416, { 'content-range': `bytes */${entry.size}`, 'content-length': 0 });
      return res.end();
    }
    const start = range?.start ?? 0;
    const end = range?.end ?? entry.size - 1;
    headers['content-length'] = entry.size === 0 ? 0 : end - start + 1;
    if (range) headers['content-range'] = `bytes ${start}-${end}/${entry.size}`;
    if (req.method === 'HEAD' || entry.size === 0) {
      res.writeHead(range ? 206 : status, headers);
      return res.end();
    }
    if (entry.size <= MEMORY_FILE_BYTES) {
      if (!entry.body) {
        // Over the budget: start again from nothing (what is still asked for comes back soon).
        if (this.#memoryBytes + entry.size > MEMORY_TOTAL_BYTES) this.#forget();
        let body: Buffer;
        try {
          body = await fs.promises.readFile(entry.real, { flag: fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW });
        } catch {
          return res.destroy();
        }
        if (body.length !== entry.size) {
          // Changed since it was looked up (a build folder should not): look again next time.
          this.#forget();
          return res.destroy();
        }
        entry.body = body;
        this.#memoryBytes += body.length;
      }
      res.writeHead(range ? 206 : status, headers);
      return res.end(range ? entry.body.subarray(start, end + 1) : entry.body);
    }
    // O_NOFOLLOW: the resolved path has no link in it; if one was put there since, it is not followed.
    let handle: fs.promises.FileHandle;
    try {
      handle = await fs.promises.open(entry.real, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch {
      return res.destroy();
    }
    res.writeHead(range ? 206 : status, headers);
    // Both ends go when either does: a client that leaves closes the file.
    pipeline(handle.createReadStream({ start, end }), res, () => undefined);
  }
}
