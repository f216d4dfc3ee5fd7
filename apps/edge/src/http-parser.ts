/**
 * Node's own HTTP/1.1 parser (llhttp in C++), the one its http server and client run on. It is
 * internal (`_http_common`, no types), and the edge uses it for the responses of apps: undici parses
 * them in WebAssembly and hands every header over as a Buffer, where this parser hands over the
 * strings the edge passes on. Measured side by side at 200 connections (one process each, loaded at
 * the same time): 56-70 us of the edge's CPU per request against 66-91 with undici's client.
 * Its callback slots and `initialize` have kept these shapes from Node 12 to 24; the edge's tests
 * (and the API suite's deploys under Node 20, 22 and 24) run through it, so a change fails there.
 */
import common from '_http_common';

export type ParserCallbacks = {
  /** The headers so far when a response has too many for one call (more than 32 pairs). */
  onHeaders(headers: string[]): void;
  /** Returns 1 to read no body (the answer to a HEAD), else 0. */
  onHeadersComplete(statusCode: number, headers: string[] | undefined, shouldKeepAlive: boolean): 0 | 1;
  onBody(chunk: Buffer): void;
  onMessageComplete(): void;
};

type NativeParser = {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  /** An Error (with `code` HPE_...) when the bytes are not HTTP, else the count parsed. */
  execute(data: Buffer): number | Error;
  /** The end of the stream: completes a response whose body runs until the connection closes. */
  finish(): number | Error | undefined;
  close(): void;
  [slot: number]: unknown;
};

type NativeParserClass = {
  new (): NativeParser;
  RESPONSE: number;
  kOnHeaders: number;
  kOnHeadersComplete: number;
  kOnBody: number;
  kOnMessageComplete: number;
};

const HTTPParser = (common as unknown as { HTTPParser: NativeParserClass }).HTTPParser;
const { kOnHeaders, kOnHeadersComplete, kOnBody, kOnMessageComplete } = HTTPParser;
/** No leniency: a response that is not clean HTTP/1.1 is an error, not a guess. */
const STRICT = 0;
/** Node's own limit on a head (--max-http-header-size, 16 KiB by default). */
const DEFAULT_MAX_HEADER_SIZE = 0;

/** A parser of HTTP responses calling `callbacks`; `close` frees it (never from inside a callback). */
export function responseParser(callbacks: ParserCallbacks): NativeParser {
  const parser = new HTTPParser();
  parser.initialize(HTTPParser.RESPONSE, {}, DEFAULT_MAX_HEADER_SIZE, STRICT);
  parser[kOnHeaders] = (headers: string[]) => callbacks.onHeaders(headers);
  parser[kOnHeadersComplete] = (
    _versionMajor: number,
    _versionMinor: number,
    headers: string[] | undefined,
    _method: number,
    _url: string,
    statusCode: number,
    _statusMessage: string,
    _upgrade: boolean,
    shouldKeepAlive: boolean,
  ) => callbacks.onHeadersComplete(statusCode, headers, shouldKeepAlive);
  parser[kOnBody] = (chunk: Buffer) => callbacks.onBody(chunk);
  parser[kOnMessageComplete] = () => callbacks.onMessageComplete();
  return parser;
}

export type ResponseParser = ReturnType<typeof responseParser>;
