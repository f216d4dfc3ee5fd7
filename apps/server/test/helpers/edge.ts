import http from 'node:http';

export type EdgeAnswer = { status: number; body: string; type: string };

/**
 * A GET through the edge on 127.0.0.1:{port} for a host, as a browser resolving `{slug}.localhost`
 * would send it (node:http, not fetch: fetch does not send a Host header of the caller's choosing).
 */
export function getThroughEdge(
  port: number,
  host: string,
  options: { path?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<EdgeAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      {
        host: '127.0.0.1',
        port,
        path: options.path ?? '/',
        headers: { ...options.headers, host },
        agent: false,
        timeout: options.timeoutMs ?? 5000,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body, type: String(response.headers['content-type']) }),
        );
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', reject);
  });
}
