import { describe, expect, it } from 'vitest';
import { parseDockerHost, splitImage } from './engine-api';
import { advanceCursor, compareTimestamps, type FramedLine, type LogCursor, LogFrameReader } from './log-frames';

function frame(kind: 1 | 2, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = kind;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('LogFrameReader', () => {
  it('splits stdout and stderr frames into timestamped lines, across cut frames and chunks', () => {
    const lines: FramedLine[] = [];
    const reader = new LogFrameReader((line) => lines.push(line));
    const bytes = Buffer.concat([
      frame(1, '2026-11-24T10:00:00.123456789Z hello\n2026-11-24T10:00:01.000000001Z wor'),
      frame(2, '2026-11-24T10:00:01.5Z oops\r\n'),
      frame(1, 'ld\n'),
    ]);
    // Chunk boundaries inside a header and inside a payload.
    reader.push(bytes.subarray(0, 5));
    reader.push(bytes.subarray(5, 40));
    reader.push(bytes.subarray(40));
    expect(lines.map((line) => [line.stream, line.timestamp, line.line])).toEqual([
      ['stdout', '2026-11-24T10:00:00.123456789Z', 'hello'],
      ['stderr', '2026-11-24T10:00:01.5Z', 'oops'],
      ['stdout', '2026-11-24T10:00:01.000000001Z', 'world'],
    ]);
    expect(lines[0]!.at.toISOString()).toBe('2026-11-24T10:00:00.123Z');
  });

  it('emits a last line without a newline on flush, and cuts a line past the limit', () => {
    const lines: FramedLine[] = [];
    const reader = new LogFrameReader((line) => lines.push(line), 8);
    reader.push(frame(1, '2026-11-24T10:00:00Z a long line with no end'));
    expect(lines).toHaveLength(1); // past the limit: emitted at once rather than held, and cut
    expect(lines[0]!.line).toBe('a long l …(cut)');
    reader.push(frame(1, '2026-11-24T10:00:00Z '));
    reader.push(frame(1, 'bye'));
    reader.flush();
    expect(lines.at(-1)!.line).toBe('bye');
  });
});

describe('log cursor', () => {
  it('skips what was read before, including lines that share the cursor second', () => {
    const cursor: LogCursor = { timestamp: '', count: 0 };
    const first = { count: 0 };
    for (const ts of ['2026-11-24T10:00:00Z', '2026-11-24T10:00:01Z', '2026-11-24T10:00:01Z']) {
      expect(advanceCursor(cursor, ts, first)).toBe(true);
    }
    expect(cursor).toEqual({ timestamp: '2026-11-24T10:00:01Z', count: 2 });
    // The next reader asks from second 10:00:01 and sees both lines of it again, then a new one.
    const again = { count: 0 };
    const replay = ['2026-11-24T10:00:01Z', '2026-11-24T10:00:01Z', '2026-11-24T10:00:01Z', '2026-11-24T10:00:02Z'];
    expect(replay.map((ts) => advanceCursor(cursor, ts, again))).toEqual([false, false, true, true]);
    expect(cursor).toEqual({ timestamp: '2026-11-24T10:00:02Z', count: 1 });
    expect(advanceCursor(cursor, '2026-11-24T10:00:00Z', { count: 0 })).toBe(false);
  });

  it('compares timestamps to the nanosecond', () => {
    expect(compareTimestamps('2026-11-24T10:00:00.000000002Z', '2026-11-24T10:00:00.000000001Z')).toBeGreaterThan(0);
    expect(compareTimestamps('2026-11-24T10:00:00.5Z', '2026-11-24T10:00:00.500000000Z')).toBe(0);
  });
});

describe('engine address and image names', () => {
  it('reads DOCKER_HOST the way the Docker CLI does', () => {
    expect(parseDockerHost(undefined)).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(parseDockerHost('unix:///run/podman/podman.sock')).toEqual({ socketPath: '/run/podman/podman.sock' });
    expect(parseDockerHost('tcp://10.0.0.5:2375')).toEqual({ host: '10.0.0.5', port: 2375 });
    expect(() => parseDockerHost('ssh://box')).toThrow(/DOCKER_HOST/);
  });

  it('splits an image into name and tag, a registry port not being a tag', () => {
    expect(splitImage('node:22-slim')).toEqual(['node', '22-slim']);
    expect(splitImage('registry:5000/team/node')).toEqual(['registry:5000/team/node', 'latest']);
    expect(splitImage('registry:5000/team/node:20')).toEqual(['registry:5000/team/node', '20']);
  });
});
