/**
 * Docker's multiplexed log stream (a container without a TTY): frames of an 8-byte header (stream
 * 1 = stdout, 2 = stderr, then the payload's length, big-endian) and the payload. With
 * `timestamps=true` every line starts with an RFC 3339 time and a space. Frames may cut a line;
 * a line is emitted once its newline arrives (or on `flush`).
 */

export type FramedLine = { stream: 'stdout' | 'stderr'; timestamp: string; at: Date; line: string };

const HEADER_BYTES = 8;

export class LogFrameReader {
  private pending: Buffer = Buffer.alloc(0);
  private readonly partial = { stdout: '', stderr: '' };

  constructor(
    private readonly onLine: (line: FramedLine) => void,
    private readonly maxLineBytes = 16 * 1024,
  ) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= HEADER_BYTES) {
      const kind = this.pending[0];
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER_BYTES + size) break;
      const payload = this.pending.subarray(HEADER_BYTES, HEADER_BYTES + size).toString('utf8');
      this.pending = this.pending.subarray(HEADER_BYTES + size);
      if (kind === 1 || kind === 2) this.text(kind === 1 ? 'stdout' : 'stderr', payload);
    }
  }

  private text(stream: 'stdout' | 'stderr', payload: string): void {
    const joined = this.partial[stream] + payload;
    const lines = joined.split('\n');
    this.partial[stream] = lines.pop() ?? '';
    for (const line of lines) this.emit(stream, line);
    if (this.partial[stream].length > this.maxLineBytes) {
      this.emit(stream, this.partial[stream]);
      this.partial[stream] = '';
    }
  }

  private emit(stream: 'stdout' | 'stderr', raw: string): void {
    const space = raw.indexOf(' ');
    const timestamp = space > 0 ? raw.slice(0, space) : '';
    const at = new Date(timestamp);
    const valid = timestamp !== '' && !Number.isNaN(at.getTime());
    let line = (valid ? raw.slice(space + 1) : raw).replace(/\r$/, '');
    if (Buffer.byteLength(line) > this.maxLineBytes) line = `${line.slice(0, this.maxLineBytes)} …(cut)`;
    this.onLine({ stream, timestamp: valid ? timestamp : '', at: valid ? at : new Date(), line });
  }

  /** The last line of each stream when it had no newline (the container ended). */
  flush(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partial[stream]) this.emit(stream, this.partial[stream]);
      this.partial[stream] = '';
    }
  }
}

/**
 * How far a container's log was read, so the next control plane reads on from there: the last
 * line's timestamp and how many lines carried exactly that timestamp (Podman writes whole seconds).
 */
export type LogCursor = { timestamp: string; count: number };

/** Whether a line is new past `cursor` (and moves the cursor when it is). */
export function advanceCursor(cursor: LogCursor, timestamp: string, seenAtCursor: { count: number }): boolean {
  if (!timestamp) return true;
  if (cursor.timestamp && compareTimestamps(timestamp, cursor.timestamp) < 0) return false;
  if (timestamp === cursor.timestamp) {
    seenAtCursor.count += 1;
    if (seenAtCursor.count <= cursor.count) return false;
    cursor.count += 1;
    return true;
  }
  cursor.timestamp = timestamp;
  cursor.count = 1;
  seenAtCursor.count = 1;
  return true;
}

/** RFC 3339 times with up to nanoseconds, compared exactly (Date keeps milliseconds only). */
export function compareTimestamps(a: string, b: string): number {
  const ms = new Date(a).getTime() - new Date(b).getTime();
  if (ms !== 0) return ms;
  return fractionNanos(a) - fractionNanos(b);
}

function fractionNanos(timestamp: string): number {
  const match = /\.(\d+)/.exec(timestamp);
  return match ? Number(`${match[1]}`.padEnd(9, '0').slice(0, 9)) % 1_000_000 : 0;
}
