/** Spec section 7/9: the stream client retries after 3000 ms, doubling up to 30000 ms. */
export const STREAM_RETRY_DELAY_MS = 3000;
export const STREAM_MAX_RETRY_DELAY_MS = 30_000;

export function nextStreamRetryDelay(previous?: number): number {
  if (!previous) return STREAM_RETRY_DELAY_MS;
  return Math.min(previous * 2, STREAM_MAX_RETRY_DELAY_MS);
}

export interface StreamOptions<T> {
  onMessage: (data: T) => void;
  onOpen?: () => void;
  onError?: (delayMs: number) => void;
  parse?: (raw: string) => T;
}

/**
 * Server-Sent Events with reconnection: 3000 ms after the first failure, doubling each time
 * up to 30000 ms; a successful open resets the delay. Returns a function that closes the stream.
 */
export function openStream<T>(url: string, options: StreamOptions<T>): () => void {
  let source: EventSource | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay: number | undefined;
  let closed = false;
  const parse = options.parse ?? ((raw: string) => JSON.parse(raw) as T);

  const connect = () => {
    if (closed) return;
    source = new EventSource(url, { withCredentials: true });
    source.onopen = () => {
      delay = undefined;
      options.onOpen?.();
    };
    source.onmessage = (event: MessageEvent<string>) => options.onMessage(parse(event.data));
    source.onerror = () => {
      source?.close();
      delay = nextStreamRetryDelay(delay);
      options.onError?.(delay);
      timer = setTimeout(connect, delay);
    };
  };

  connect();
  return () => {
    closed = true;
    if (timer) clearTimeout(timer);
    source?.close();
  };
}
