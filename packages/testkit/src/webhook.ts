import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { waitUntil } from './wait';

export type WebhookRequest = {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: unknown;
  at: number;
};

export type WebhookAnswer = { status: number; body?: string; headers?: Record<string, string>; delayMs?: number };
/** Decides the answer to the n-th request (0-based); default 200 'ok' like Slack. */
export type Responder = (request: WebhookRequest, index: number) => WebhookAnswer;

export type WebhookReceiver = {
  port: number;
  /** A webhook URL on this receiver; the path plays the part of Slack's secret. */
  url(path?: string): string;
  requests: WebhookRequest[];
  respond: Responder;
  /** Resolves with the first request (now or later) that matches. */
  waitForRequest(match: (request: WebhookRequest) => boolean, timeoutMs?: number): Promise<WebhookRequest>;
  /** Stops listening (the port stays reserved for start()): a receiver that is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
};

export const SLACK_SECRET_PATH = '/services/T0TEST/B0TEST/very-secret-token-123';

/** A real HTTP server on 127.0.0.1 that records every request, standing in for Slack. */
export async function startWebhookReceiver(respond: Responder = () => ({ status: 200, body: 'ok' })): Promise<WebhookReceiver> {
  const requests: WebhookRequest[] = [];
  const sockets = new Set<Socket>();
  const receiver: WebhookReceiver = {
    port: 0,
    url: (path = SLACK_SECRET_PATH) => `http://127.0.0.1:${receiver.port}${path}`,
    requests,
    respond,
    waitForRequest: (match, timeoutMs = 15_000) => waitUntil(() => requests.find(match), 'a matching webhook request', timeoutMs),
    stop: async () => undefined,
    start: async () => undefined,
    close: async () => undefined,
  };
  let server: http.Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const created = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(body);
          } catch {
            json = undefined;
          }
          const request: WebhookRequest = {
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            body,
            json,
            at: Date.now(),
          };
          const index = requests.length;
          requests.push(request);
          const answer = receiver.respond(request, index);
          setTimeout(() => {
            res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
            res.end(answer.body ?? '');
          }, answer.delayMs ?? 0);
        });
      });
      server = created;
      created.on('connection', (socket) => {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
      });
      created.once('error', reject);
      created.listen(receiver.port, '127.0.0.1', () => {
        receiver.port = (created.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server?.listening) return resolve();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  receiver.stop = stop;
  receiver.start = listen;
  receiver.close = stop;
  await listen();
  return receiver;
}
