/**
 * Follows one of an app's log files (the app appends to it through an inherited file descriptor,
 * which survives the control plane) and turns what is appended into lines. It remembers how far it
 * has read (`offset`, saved in the driver's state), so a new control plane carries on where the
 * last one stopped. Lines longer than `maxLineBytes` are cut; a file larger than `maxFileBytes`
 * is copied to `FILE.1` and emptied once read (the app keeps appending at the new end).
 */
import fs from 'node:fs';

export type LogTailOptions = {
  file: string;
  /** Where to start reading (bytes already turned into lines). */
  offset: number;
  onLine: (line: string, at: Date) => void;
  maxLineBytes?: number;
  maxFileBytes?: number;
  /** The time given to lines read at the first read (written while nobody followed the file). */
  backlogTime?: 'now' | 'mtime';
};

const READ_CHUNK = 64 * 1024;
/** Bytes read in one go before the tail yields to the event loop. */
const READ_BUDGET = 1024 * 1024;
export const CUT_MARK = ' [line cut]';

export class LogTail {
  readonly file: string;
  private fd: number | null = null;
  private position: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Inside a line that was cut: drop bytes until its end. */
  private skipping = false;
  private watcher: fs.FSWatcher | null = null;
  private closed = false;
  /** start() was called: watch the file as soon as it exists. */
  private following = false;
  private scheduled = false;
  private first = true;
  private readonly maxLineBytes: number;
  private readonly maxFileBytes: number;
  private readonly buffer = Buffer.allocUnsafe(READ_CHUNK);

  constructor(private readonly options: LogTailOptions) {
    this.file = options.file;
    this.position = Math.max(0, options.offset);
    this.maxLineBytes = options.maxLineBytes ?? 16 * 1024;
    this.maxFileBytes = options.maxFileBytes ?? 16 * 1024 * 1024;
  }

  /** How far the file has been turned into lines (a partial last line is not counted: it is read again). */
  get offset(): number {
    return this.position - this.pendingBytes;
  }

  /** Reads what is there and follows the file (fs.watch; call `poll()` now and then too, as a safety net). */
  start(): void {
    this.following = true;
    this.poll();
    this.watch();
  }

  /**
   * Watches the file for appends. A file that does not exist yet is watched from the first read that
   * finds it, so a new app's first lines arrive at once rather than at the next safety-net poll.
   */
  private watch(): void {
    if (!this.following || this.closed || this.watcher || this.fd === null) return;
    try {
      this.watcher = fs.watch(this.file, { persistent: false }, () => this.schedule());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = null;
      });
    } catch {
      // no inotify left: the driver's polls still read it
      this.following = false;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.poll();
    });
  }

  private open(): number | null {
    if (this.fd !== null) return this.fd;
    try {
      this.fd = fs.openSync(this.file, 'r');
    } catch {
      this.fd = null;
    }
    return this.fd;
  }

  /** Reads everything appended since the last read and emits the complete lines. */
  poll(): void {
    if (this.closed) return;
    const fd = this.open();
    if (fd === null) return;
    if (!this.watcher) this.watch();
    let stat: fs.Stats;
    try {
      stat = fs.fstatSync(fd);
    } catch {
      return;
    }
    const at = this.first && this.options.backlogTime === 'mtime' ? new Date(Math.min(stat.mtimeMs, Date.now())) : new Date();
    this.first = false;
    if (stat.size < this.position) {
      // Emptied (by us, or by someone truncating the file): start over at its beginning.
      this.position = 0;
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = false;
    }
    let budget = READ_BUDGET;
    while (budget > 0 && this.position < stat.size) {
      let read: number;
      try {
        read = fs.readSync(fd, this.buffer, 0, Math.min(READ_CHUNK, stat.size - this.position), this.position);
      } catch {
        return;
      }
      if (read <= 0) break;
      this.position += read;
      budget -= read;
      this.consume(this.buffer.subarray(0, read), at);
    }
    if (this.position < stat.size) {
      this.schedule(); // more to read: let the event loop breathe first
      return;
    }
    if (this.position >= this.maxFileBytes && this.pendingBytes === 0) this.rotate();
  }

  private consume(chunk: Buffer, at: Date): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      let line: Buffer;
      if (this.pendingBytes > 0) {
        line = Buffer.concat([...this.pending, piece]);
        this.pending = [];
        this.pendingBytes = 0;
      } else {
        line = piece;
      }
      this.emit(line, at);
    }
    if (start < chunk.length && !this.skipping) {
      // Copied: the read buffer is reused.
      const rest = Buffer.from(chunk.subarray(start));
      this.pending.push(rest);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.maxLineBytes) {
        // A line without end in sight: emit its beginning now, drop the rest up to its end.
        this.emit(Buffer.concat(this.pending), at);
        this.pending = [];
        this.pendingBytes = 0;
        this.skipping = true;
      }
    }
  }

  private emit(raw: Buffer, at: Date): void {
    let bytes = raw;
    let cut = false;
    if (bytes.length > this.maxLineBytes) {
      bytes = bytes.subarray(0, this.maxLineBytes);
      cut = true;
    }
    let line = bytes.toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (cut) line = `${line.replace(/\uFFFD$/, '')}${CUT_MARK}`;
    try {
      this.options.onLine(line, at);
    } catch {
      // a listener's failure is not the tail's
    }
  }

  /** Keeps the last file's worth in FILE.1 and empties the file: the app keeps appending at its (new) end. */
  private rotate(): void {
    try {
      fs.copyFileSync(this.file, `${this.file}.1`);
      this.readAfterCopy();
      fs.truncateSync(this.file, 0);
      this.position = 0;
    } catch {
      // try again at the next read
    }
  }

  /** What was appended while the file was copied (lines written in between would be lost otherwise). */
  private readAfterCopy(): void {
    const fd = this.fd;
    if (fd === null) return;
    const size = fs.fstatSync(fd).size;
    while (this.position < size) {
      const read = fs.readSync(fd, this.buffer, 0, Math.min(READ_CHUNK, size - this.position), this.position);
      if (read <= 0) break;
      this.position += read;
      this.consume(this.buffer.subarray(0, read), new Date());
    }
  }

  /** Emits a last line without its newline (the process ended in the middle of it). */
  flush(): void {
    if (this.pendingBytes === 0) return;
    const line = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    this.emit(line, new Date());
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    this.watcher = null;
    if (this.fd !== null) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // closed
      }
      this.fd = null;
    }
  }
}
