import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { request, route, sleep, startEdge, startUpstream, TEST_DRIVER } from './helpers';

/**
 * A new deployment takes over: the table is switched from app A to app B while keep-alive clients
 * keep sending, then A is closed gracefully (as the control plane stops it). No request may fail,
 * requests in flight finish on A, and every request sent after the switch goes to B.
 *
 * With the nginx driver the switch is an nginx reload, and nginx's old workers close their idle
 * keep-alive connections as they leave: a request written onto such a connection at that very
 * moment meets a closed connection before any answer. Browsers send such a request again on a new
 * connection (RFC 9112 9.3.1), and so does this client, for the nginx driver only: the embedded
 * edge never closes a client's connection on a switch, and its clients never resend.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Outcome = { sentAt: number; doneAt: number; status: number; body: string } | { sentAt: number; error: string };

/** An app that answers its name and the request body, after up to `maxDelayMs`; counts what it has in hand. */
async function app(name: string, maxDelayMs: number) {
  let active = 0;
  const started = await startUpstream((req, res) => {
    active++;
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      setTimeout(() => {
        active--;
        res.end(`${name}:${Buffer.concat(parts).toString()}`);
      }, Math.random() * maxDelayMs);
    });
  });
  cleanups.push(started.close);
  return { ...started, active: () => active };
}

/** Keep-alive clients sending without pause until stopped; every third request carries a body. */
function load(port: number, workers: number, bodyMethod: 'POST' | 'PUT') {
  const agent = new http.Agent({ keepAlive: true, maxSockets: workers });
  const outcomes: Outcome[] = [];
  let running = true;
  let resent = 0;
  const worker = async (id: number) => {
    for (let i = 0; running; i++) {
      const sentAt = performance.now();
      const withBody = i % 3 === 0;
      const send = (via: http.Agent | false) =>
        request(port, {
          host: 'a.test',
          agent: via,
          method: withBody ? bodyMethod : 'GET',
          body: withBody ? `w${id}-${i}` : undefined,
        });
      try {
        let answer: Awaited<ReturnType<typeof send>>;
        try {
          answer = await send(agent);
        } catch (error) {
          if (TEST_DRIVER !== 'nginx' || !(error as { reusedSocket?: boolean }).reusedSocket) throw error;
          resent++;
          answer = await send(false);
        }
        outcomes.push({ sentAt, doneAt: performance.now(), status: answer.status, body: answer.body });
      } catch (error) {
        outcomes.push({ sentAt, error: (error as Error).message });
      }
    }
  };
  const all = Array.from({ length: workers }, (_, id) => worker(id));
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(all);
      agent.destroy();
      if (resent > 0) console.log(`${resent} of ${outcomes.length} requests resent after nginx closed their idle connection`);
    },
  };
}

function check(outcomes: Outcome[], switchedAt: number) {
  const failures = outcomes.filter((o) => 'error' in o || o.status !== 200);
  expect(failures).toEqual([]);
  const answered = outcomes as Extract<Outcome, { status: number }>[];
  const sentAfter = answered.filter((o) => o.sentAt > switchedAt);
  expect(sentAfter.length).toBeGreaterThan(20);
  expect(sentAfter.filter((o) => !o.body.startsWith('B:'))).toEqual([]);
  // Some requests were on their way to A when the switch came, and A finished them.
  expect(answered.some((o) => o.sentAt < switchedAt && o.doneAt > switchedAt && o.body.startsWith('A:'))).toBe(true);
  // Bodies arrived whole wherever they went.
  for (const o of answered) expect(o.body).toMatch(/^[AB]:(w\d+-\d+)?$/);
}

describe('switching deployments', () => {
  it('drops nothing: in-flight requests finish on the old app, new ones go to the new app', async () => {
    const a = await app('A', 100);
    const b = await app('B', 20);
    const edge = await startEdge([route('a.test', [a.upstream], { deploymentId: 1 })]);
    cleanups.push(edge.close);
    const traffic = load(edge.port, 16, 'POST');

    await sleep(500);
    // The switch is done when the edge serves the new table (at once for the embedded edge; once
    // nginx has reloaded for the nginx driver).
    await edge.setRoutes([route('a.test', [b.upstream], { deploymentId: 2 })]);
    const switchedAt = performance.now();
    // The control plane drains A (here for a moment only), then stops it gracefully while it still
    // holds requests: it stops listening, finishes them, and closes.
    await sleep(30);
    const inHandAtStop = a.active();
    const aClosed = new Promise<void>((resolve) => a.server.close(() => resolve()));
    await sleep(500);
    await traffic.stop();
    await aClosed;

    expect(inHandAtStop).toBeGreaterThan(0);
    check(traffic.outcomes, switchedAt);
    expect((await request(edge.port, { host: 'a.test' })).body).toBe('B:');
  });

  it('drops nothing either when the old app closes at the very moment of the switch', async () => {
    // Closing at once races with requests the edge has just written to A: A closes those
    // connections unread. The edge sends such requests again, to B (PUT and GET are idempotent).
    const a = await app('A', 30);
    const b = await app('B', 30);
    const edge = await startEdge([route('a.test', [a.upstream], { deploymentId: 1 })]);
    cleanups.push(edge.close);
    const traffic = load(edge.port, 16, 'PUT');

    await sleep(500);
    // The switch is done when the edge serves the new table (at once for the embedded edge; once
    // nginx has reloaded for the nginx driver).
    await edge.setRoutes([route('a.test', [b.upstream], { deploymentId: 2 })]);
    const switchedAt = performance.now();
    const aClosed = new Promise<void>((resolve) => a.server.close(() => resolve()));
    await sleep(500);
    await traffic.stop();
    await aClosed;

    check(traffic.outcomes, switchedAt);
  });
});
