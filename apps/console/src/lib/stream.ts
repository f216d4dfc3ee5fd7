/** Spec section 7/9: the stream client retries after 3000 ms, doubling up to 30000 ms. */
export const STREAM_RETRY_DELAY_MS = 3000;
export const STREAM_MAX_RETRY_DELAY_MS = 30_000;
/**
 * The server writes a comment at least every 15 s on an idle stream; a connection silent for this
 * long is dead (a proxy or a laptop lid dropped it without closing it) and is opened again.
 */
export const STREAM_IDLE_TIMEOUT_MS = 45_000;

export function nextStreamRetryDelay(previous?: number): number {
  if (!previous) return STREAM_RETRY_DELAY_MS;
  return Math.min(previous * 2, STREAM_MAX_RETRY_DELAY_MS);
}

/** Where a stream is: the log viewer shows 'Live', 'Connecting…' or 'Reconnecting in Ns' from it. */
export type StreamState =
  | { state: 'connecting' }
  | { state: 'open' }
  /** Waiting `delayMs` before the next attempt, which starts at `retryAt` (ms since the epoch). */
  | { state: 'retrying'; delayMs: number; retryAt: number; attempt: number }
  /** Given up for good (a 4xx answer, or closed by the caller). */
  | { state: 'closed'; error?: StreamError };

/** Why a stream stopped: the HTTP status when the server answered, 0 for a network failure. */
export class StreamError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'StreamError';
    this.status = status;
  }
}

export interface StreamMessage<T> {
  /** The event's name: 'message' when the server named none. */
  event: string;
  /** The event's id (the server's `id:` field), if it had one. */
  id: string | undefined;
  data: T;
}

export interface StreamOptions<T> {
  /** Called for each event whose name is in `events`. */
  onMessage: (data: T, message: StreamMessage<T>) => void;
  /**
   * The named events to deliver (the server's `event:` field), e.g. `['log']`. Default: unnamed
   * events only ('message'), like EventSource's onmessage.
   */
  events?: readonly string[];
  onOpen?: () => void;
  /** A failure before a retry: `delayMs` until the next attempt (3000, 6000, ... 30000). */
  onError?: (delayMs: number, error: StreamError) => void;
  /** Every change of state, for a status line. */
  onStateChange?: (state: StreamState) => void;
  /** How `data` becomes a value; default JSON.parse. */
  parse?: (raw: string) => T;
  /** Resume after this event id (sent as Last-Event-ID on the first request). */
  lastEventId?: string;
  idleTimeoutMs?: number;
}

interface ParsedEvent {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * An incremental parser of the text/event-stream format (WHATWG HTML, 9.2.6): feed it decoded
 * chunks as they arrive; it calls `dispatch` for each complete event and tracks the last event id.
 */
export class EventStreamParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #sawCarriageReturn = false;
  lastEventId: string | undefined;

  constructor(
    private readonly dispatch: (event: ParsedEvent) => void,
    lastEventId?: string,
  ) {
    this.lastEventId = lastEventId;
  }

  push(chunk: string): void {
    let text = chunk;
    // A CRLF split across two chunks: the LF belongs to the CR already handled.
    if (this.#sawCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    this.#sawCarriageReturn = false;
    this.#buffer += text;
    let start = 0;
    for (let i = 0; i < this.#buffer.length; i++) {
      const char = this.#buffer.charCodeAt(i);
      if (char !== 10 && char !== 13) continue;
      this.#line(this.#buffer.slice(start, i));
      if (char === 13) {
        if (i + 1 === this.#buffer.length) this.#sawCarriageReturn = true;
        else if (this.#buffer.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.#buffer = this.#buffer.slice(start);
  }

  #line(line: string): void {
    if (line === '') {
      this.#flush();
      return;
    }
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\u0000')) this.lastEventId = value;
    // 'retry' is ignored: the console keeps the spec's own schedule.
  }

  #flush(): void {
    const event = this.#event || 'message';
    this.#event = '';
    if (this.#data.length === 0) return;
    const data = this.#data.join('\n');
    this.#data = [];
    this.dispatch({ event, data, id: this.lastEventId });
  }
}

/** 4xx answers are final (the log does not exist, the session ended): retrying cannot help. */
function isFinal(status: number): boolean {
  return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * Server-Sent Events with reconnection: 3000 ms after the first failure, doubling each time up to
 * 30000 ms; a successful open resets the delay. Each attempt resumes after the last event received
 * (Last-Event-ID), so nothing is delivered twice and nothing is missed.
 *
 * It reads the stream with fetch rather than EventSource: EventSource reconnects on its own
 * schedule (the server's `retry:`), and a new EventSource cannot send Last-Event-ID, so a client
 * that keeps the spec's doubling delays would otherwise start the whole log over on every retry.
 * fetch sends the session cookie like EventSource does (same origin, credentials 'same-origin').
 *
 * Returns a function that closes the stream.
 */
export function openStream<T>(url: string, options: StreamOptions<T>): () => void {
  const events = new Set(options.events ?? ['message']);
  const parse = options.parse ?? ((raw: string) => JSON.parse(raw) as T);
  const idleTimeoutMs = options.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS;
  let lastEventId = options.lastEventId;
  let delay: number | undefined;
  let attempt = 0;
  let closed = false;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let controller: AbortController | undefined;

  const setState = (state: StreamState) => {
    if (!closed || state.state === 'closed') options.onStateChange?.(state);
  };

  const scheduleRetry = (error: StreamError) => {
    if (closed) return;
    delay = nextStreamRetryDelay(delay);
    attempt += 1;
    options.onError?.(delay, error);
    setState({ state: 'retrying', delayMs: delay, retryAt: Date.now() + delay, attempt });
    retryTimer = setTimeout(() => void connect(), delay);
  };

  const connect = async () => {
    if (closed) return;
    setState({ state: 'connecting' });
    const attemptController = new AbortController();
    controller = attemptController;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    let idled = false;
    const armIdle = () => {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        idled = true;
        attemptController.abort();
      }, idleTimeoutMs);
    };
    try {
      armIdle();
      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
      const response = await fetch(url, {
        headers,
        credentials: 'same-origin',
        cache: 'no-store',
        signal: attemptController.signal,
      });
      if (!response.ok) {
        const error = new StreamError(response.status, response.statusText || `The stream answered ${response.status}`);
        void response.body?.cancel().catch(() => undefined);
        if (isFinal(response.status)) {
          clearTimeout(idleTimer);
          closed = true;
          setState({ state: 'closed', error });
          return;
        }
        throw error;
      }
      if (!response.body || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        throw new StreamError(response.status, 'The server did not answer with an event stream');
      }
      delay = undefined;
      attempt = 0;
      setState({ state: 'open' });
      options.onOpen?.();

      const parser = new EventStreamParser((event) => {
        lastEventId = event.id;
        if (!events.has(event.event)) return;
        let data: T;
        try {
          data = parse(event.data);
        } catch {
          return; // one malformed event does not end the stream
        }
        options.onMessage(data, { event: event.event, id: event.id, data });
      }, lastEventId);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (closed) return;
        armIdle();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
      parser.push(decoder.decode());
      // The server ended the stream (it restarted, or a proxy timed out): open it again.
      throw new StreamError(0, 'The stream ended');
    } catch (error) {
      if (closed) return;
      const streamError =
        error instanceof StreamError
          ? error
          : new StreamError(0, idled ? 'The stream went silent' : error instanceof Error ? error.message : 'Stream failed');
      scheduleRetry(streamError);
    } finally {
      clearTimeout(idleTimer);
    }
  };

  void connect();
  return () => {
    if (closed) return;
    closed = true;
    clearTimeout(retryTimer);
    controller?.abort();
    options.onStateChange?.({ state: 'closed' });
  };
}
