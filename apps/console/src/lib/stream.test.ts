import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  EventStreamParser,
  nextStreamRetryDelay,
  openStream,
  STREAM_MAX_RETRY_DELAY_MS,
  STREAM_RETRY_DELAY_MS,
  type StreamState,
} from './stream';

describe('the retry schedule (spec: 3000 ms, doubling to 30000 ms)', () => {
  it('starts at 3000 ms and doubles up to the 30000 ms cap', () => {
    const delays: number[] = [];
    let delay: number | undefined;
    for (let i = 0; i < 7; i++) {
      delay = nextStreamRetryDelay(delay);
      delays.push(delay);
    }
    expect(STREAM_RETRY_DELAY_MS).toBe(3000);
    expect(STREAM_MAX_RETRY_DELAY_MS).toBe(30_000);
    expect(delays).toEqual([3000, 6000, 12_000, 24_000, 30_000, 30_000, 30_000]);
  });
});

describe('EventStreamParser', () => {
  it('reads named events, ids and multi-line data across chunk boundaries', () => {
    const events: { event: string; data: string; id: string | undefined }[] = [];
    const parser = new EventStreamParser((event) => events.push(event));
    parser.push('retry: 3000\n\nid: 7\nevent: log\nda');
    parser.push('ta: {"a":1}\r');
    parser.push('\n\r\n: keep-alive\n\ndata: one\ndata: two\n\n');
    expect(events).toEqual([
      { event: 'log', data: '{"a":1}', id: '7' },
      { event: 'message', data: 'one\ntwo', id: '7' },
    ]);
    expect(parser.lastEventId).toBe('7');
  });
});

/** A fetch Response streaming the given SSE chunks, then staying open or ending. */
function sseResponse(chunks: string[], options: { end?: boolean } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (options.end) controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
}

describe('openStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('retries after 3000, 6000, 12000 ms while the server is away, and resets after a successful open', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockRejectedValue(new TypeError('Failed to fetch'));
    vi.stubGlobal('fetch', fetchMock);
    const delays: number[] = [];
    const states: StreamState['state'][] = [];
    const close = openStream('/api/stream', {
      onMessage: () => undefined,
      onError: (delay) => delays.push(delay),
      onStateChange: (state) => states.push(state.state),
    });

    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(delays).toEqual([3000]);

    await vi.advanceTimersByTimeAsync(2999);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(delays).toEqual([3000, 6000]);

    await vi.advanceTimersByTimeAsync(6000);
    expect(delays).toEqual([3000, 6000, 12_000]);
    await vi.advanceTimersByTimeAsync(12_000);
    await vi.advanceTimersByTimeAsync(24_000);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(delays).toEqual([3000, 6000, 12_000, 24_000, 30_000, 30_000]);
    expect(states).toContain('retrying');

    // The server is back: the stream opens, then drops; the next wait starts at 3000 again.
    fetchMock.mockResolvedValueOnce(sseResponse(['retry: 3000\n\n'], { end: true }));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(states).toContain('open');
    expect(delays.at(-1)).toBe(3000);
    close();
    expect(states.at(-1)).toBe('closed');
  });

  it('delivers named events and resumes after the last id with Last-Event-ID', async () => {
    const fetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(
        sseResponse(
          [
            'retry: 3000\n\n',
            'id: 41\nevent: log\ndata: {"id":41,"line":"one"}\n\n',
            'id: 42\nevent: other\ndata: {"id":42}\n\n',
          ],
          { end: true },
        ),
      )
      .mockResolvedValueOnce(sseResponse(['id: 43\nevent: log\ndata: {"id":43,"line":"two"}\n\n']));
    vi.stubGlobal('fetch', fetchMock);
    const received: unknown[] = [];
    const close = openStream<{ id: number }>('/api/logs', { events: ['log'], onMessage: (data) => received.push(data) });

    await vi.advanceTimersByTimeAsync(0);
    expect(received).toEqual([{ id: 41, line: 'one' }]);
    const headersOf = (call: number) => (fetchMock.mock.calls[call]?.[1]?.headers ?? {}) as Record<string, string>;
    expect(fetchMock.mock.calls[0]?.[1]?.credentials).toBe('same-origin');
    expect(headersOf(0).Accept).toBe('text/event-stream');
    expect(headersOf(0)['Last-Event-ID']).toBeUndefined();

    await vi.advanceTimersByTimeAsync(3000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(headersOf(1)['Last-Event-ID']).toBe('42');
    expect(received).toEqual([
      { id: 41, line: 'one' },
      { id: 43, line: 'two' },
    ]);
    close();
  });

  it('gives up on a 404 (the log does not exist): no retry', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockResolvedValue(new Response('{}', { status: 404 }));
    vi.stubGlobal('fetch', fetchMock);
    const states: StreamState[] = [];
    openStream('/api/logs', { onMessage: () => undefined, onStateChange: (state) => states.push(state) });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const last = states.at(-1);
    expect(last?.state).toBe('closed');
    expect(last?.state === 'closed' ? last.error?.status : undefined).toBe(404);
  });

  it('retries on a 503 like on a network failure', async () => {
    const fetchMock = vi.fn<typeof fetch>().mockResolvedValue(new Response('', { status: 503 }));
    vi.stubGlobal('fetch', fetchMock);
    const delays: number[] = [];
    const close = openStream('/api/logs', { onMessage: () => undefined, onError: (delay) => delays.push(delay) });
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(3000);
    expect(delays).toEqual([3000, 6000]);
    close();
  });
});
