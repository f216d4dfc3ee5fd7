import fs from 'node:fs';
import { PROXY_LOG_TEXT_LIMIT, type ProxyLogRow } from '@launchbay/edge-protocol';
import type { ProxyLogPacer } from '../proxy-log-pacer';
import type { ProxyLogWriterStats } from '../proxy-log-writer';
import type { RequestLog } from '../request-log';
import type { NginxLogLine } from './render';

const POLL_MS = 250;
/** The access log is rotated (renamed, then nginx reopens it) past this size, once every line of it is read. */
const ROTATE_BYTES = 64 * 1024 * 1024;
/** At most this much is read at once, so a large backlog after a restart goes to the writer in steps. */
const READ_BYTES = 4 * 1024 * 1024;

const cut = (text: string) => (text.length > PROXY_LOG_TEXT_LIMIT ? text.slice(0, PROXY_LOG_TEXT_LIMIT) : text);
const orNull = (text: string | undefined) => (text ? cut(text) : null);
const id = (text: string | undefined) => {
  const value = Number(text);
  return text && Number.isInteger(value) && value > 0 ? value : null;
};

/**
 * The upstream a request went to, from nginx's `$upstream_addr`: addresses of one pass are separated
 * by ", " (a retry on the next upstream), passes by " : " (an internal redirect). The edge's own
 * fallback is not an upstream (the edge answered itself); of the others the last one counts.
 */
function upstreamOf(text: string, fallback: string): string | null {
  const addresses = text
    .split(/\s*[,:]\s+/)
    .map((address) => address.trim())
    .filter((address) => address && address !== '-' && address !== fallback);
  return addresses.at(-1) ?? null;
}

/** One line of nginx's JSON access log (render.ts writes its format) as a proxy-log row; null for a line that is not one. */
export function rowFromNginxLine(line: string, fallbackAddress: string): ProxyLogRow | null {
  let raw: Partial<NginxLogLine>;
  try {
    raw = JSON.parse(line) as Partial<NginxLogLine>;
  } catch {
    return null;
  }
  const endMs = Number(raw.msec) * 1000;
  const durationMs = Number(raw.request_time) * 1000;
  const status = Number(raw.status);
  if (!Number.isFinite(endMs) || !Number.isFinite(durationMs) || !Number.isInteger(status)) return null;
  const uri = raw.uri ?? '';
  const q = uri.indexOf('?');
  return {
    at: new Date(Math.round(endMs - durationMs)).toISOString(),
    method: cut(raw.method || 'GET'),
    host: cut(raw.host ?? ''),
    path: cut((q === -1 ? uri : uri.slice(0, q)) || '/'),
    query: q === -1 || q === uri.length - 1 ? null : cut(uri.slice(q + 1)),
    status,
    durationMs: Math.round(durationMs * 100) / 100,
    bytesIn: Number(raw.bytes_in) || 0,
    bytesOut: Number(raw.bytes_out) || 0,
    clientIp: raw.client ?? '',
    userAgent: orNull(raw.user_agent),
    referrer: orNull(raw.referrer),
    route: orNull(raw.route),
    projectId: id(raw.project),
    environmentId: id(raw.environment),
    deploymentId: id(raw.deployment),
    upstream: upstreamOf(raw.upstream ?? '', fallbackAddress),
    tlsVersion: orNull(raw.tls),
  };
}

export type NginxAccessLogOptions = {
  file: string;
  /** Where the read position is kept, so an edge restarted after a crash goes on where the database has the rows up to. */
  positionFile: string;
  /** The edge's fallback as nginx names it in `$upstream_addr` (127.0.0.1:port). */
  fallbackAddress: string;
  sink: RequestLog;
  /** Rows the writer has written or given up on so far: a position is kept once every row before it is one of these. */
  settled: () => ProxyLogWriterStats;
  /** Tells nginx to open its logs again (after the file was renamed). */
  reopen: () => void;
  log: (message: string) => void;
  /** While it says rows wait (nginx is saturating the machine), the log is not read: the file keeps them meanwhile. */
  pacer?: ProxyLogPacer;
};

/** What a line of the access log weighs until some are read (the JSON of a request with a short user agent). */
const TYPICAL_LINE_BYTES = 400;

/**
 * Reads nginx's access log into proxy-log rows as nginx writes it. The read position is saved only
 * once the rows before it are in the database (or counted as dropped), so a crash of the edge never
 * loses a row: the next edge reads again from there.
 */
export class NginxAccessLog {
  #position = 0;
  #partial = '';
  #recorded = 0;
  /** Read positions waiting for their rows to be settled: [position, rows recorded up to it]. */
  #pending: [number, number][] = [];
  #timer: NodeJS.Timeout | undefined;
  #reading = false;
  #rotatedAt = 0;
  /** Between the rename and reading the old file's tail: nothing else is read meanwhile. */
  #rotating = false;
  /** The file's size at the last poll, the bytes it grew by since the pacer last asked, and what lines weigh so far. */
  #lastSize = 0;
  #grownBytes = 0;
  #bytesTaken = 0;
  #linesTaken = 0;

  constructor(private readonly options: NginxAccessLogOptions) {}

  start(): void {
    try {
      const saved = JSON.parse(fs.readFileSync(this.options.positionFile, 'utf8')) as { position?: unknown };
      if (typeof saved.position === 'number' && saved.position >= 0) this.#position = saved.position;
    } catch {
      this.#position = 0;
    }
    try {
      this.#lastSize = fs.statSync(this.options.file).size; // what is there already is no traffic of now
    } catch {
      this.#lastSize = 0;
    }
    this.#timer = setInterval(() => void this.poll(), POLL_MS);
    this.#timer.unref();
  }

  /** Reads what nginx has written since the last time; resolves once it is handed to the writer. */
  async poll(): Promise<void> {
    if (this.#reading || this.#rotating) return;
    this.#reading = true;
    try {
      this.#settle();
      let size: number;
      try {
        size = fs.statSync(this.options.file).size;
      } catch {
        return; // nothing logged yet
      }
      if (size > this.#lastSize) this.#grownBytes += size - this.#lastSize;
      this.#lastSize = size;
      if (this.options.pacer?.waiting) return;
      if (size < this.#position) {
        // Shorter than what was read: a new file (renamed away by hand, or truncated). Start over.
        this.#position = 0;
        this.#partial = '';
      }
      while (this.#position < size) {
        const length = Math.min(READ_BYTES, size - this.#position);
        const buffer = Buffer.alloc(length);
        const fd = fs.openSync(this.options.file, 'r');
        try {
          fs.readSync(fd, buffer, 0, length, this.#position);
        } finally {
          fs.closeSync(fd);
        }
        this.#position += length;
        this.#take(buffer.toString('utf8'));
      }
      if (size >= ROTATE_BYTES && this.#partial === '' && Date.now() - this.#rotatedAt > 10_000) this.#rotate();
    } finally {
      this.#reading = false;
    }
  }

  /** About how many requests nginx logged since the last call (from the file's growth): the traffic the pacer weighs. */
  takeRequestEstimate(): number {
    const lineBytes = this.#linesTaken > 0 ? this.#bytesTaken / this.#linesTaken : TYPICAL_LINE_BYTES;
    const estimate = Math.round(this.#grownBytes / lineBytes);
    this.#grownBytes = 0;
    return estimate;
  }

  #take(text: string): void {
    this.#bytesTaken += text.length;
    const lines = (this.#partial + text).split('\n');
    this.#linesTaken += lines.length - 1;
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      const row = rowFromNginxLine(line, this.options.fallbackAddress);
      if (!row) continue;
      this.options.sink.record(row);
      this.#recorded++;
    }
    this.#pending.push([this.#position - Buffer.byteLength(this.#partial), this.#recorded]);
  }

  /** Saves the furthest position whose rows are all written (or dropped and counted). */
  #settle(): void {
    const stats = this.options.settled();
    const settled = stats.written + stats.dropped;
    let position: number | null = null;
    while (this.#pending.length > 0 && (this.#pending[0] as [number, number])[1] <= settled) {
      position = (this.#pending.shift() as [number, number])[0];
    }
    if (position !== null) this.#save(position);
  }

  #save(position: number): void {
    try {
      fs.writeFileSync(this.options.positionFile, JSON.stringify({ position }));
    } catch (error) {
      this.options.log(`cannot save the access-log position: ${(error as Error).message}`);
    }
  }

  /**
   * Moves the full log aside and has nginx open a new one. What nginx still writes to the old file
   * before it reopens is read from there first, then reading goes on at the start of the new file.
   */
  #rotate(): void {
    const aside = `${this.options.file}.1`;
    try {
      fs.renameSync(this.options.file, aside);
    } catch (error) {
      this.options.log(`cannot rotate the nginx access log: ${(error as Error).message}`);
      return;
    }
    this.#rotatedAt = Date.now();
    this.#rotating = true;
    this.options.reopen();
    const position = this.#position;
    // nginx reopens within its next event loop turn; give it a moment, then read the tail of the old file.
    setTimeout(() => {
      try {
        const size = fs.statSync(aside).size;
        if (size > position) {
          const buffer = Buffer.alloc(size - position);
          const fd = fs.openSync(aside, 'r');
          try {
            fs.readSync(fd, buffer, 0, buffer.length, position);
          } finally {
            fs.closeSync(fd);
          }
          this.#take(buffer.toString('utf8'));
        }
      } catch (error) {
        this.options.log(`cannot read the rotated nginx access log: ${(error as Error).message}`);
      }
      this.#position = 0;
      this.#partial = '';
      this.#pending = [[0, this.#recorded]];
      this.#save(0);
      this.#rotating = false;
    }, 1000).unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.poll();
  }
}
