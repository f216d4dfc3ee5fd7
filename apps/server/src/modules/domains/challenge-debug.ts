import http from 'node:http';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpChallengeDebug } from '@launchbay/contract';
import { ACME_CHALLENGE_PREFIX } from '@launchbay/edge-protocol';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { resolveAddresses, tcpReachable } from '../../lib/dns';
import { type DomainRow, domainOrders } from './schema';

type Check = HttpChallengeDebug['checks'][number];

/** This machine's own addresses, and the public one when it is configured. */
function ownAddresses(ctx: AppContext): Set<string> {
  const addresses = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const item of list ?? []) addresses.add(item.address);
  if (ctx.config.publicIp) addresses.add(ctx.config.publicIp);
  return addresses;
}

function fetchToken(
  address: string,
  port: number,
  host: string,
  token: string,
): Promise<{ status: number; body: string } | string> {
  return new Promise((resolve) => {
    const request = http.get(
      { host: address, port, path: `${ACME_CHALLENGE_PREFIX}${token}`, headers: { host }, timeout: 3000, agent: false },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (body.length < 4096) body += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('timeout', () => request.destroy(new Error('no answer within 3 s')));
    request.on('error', (error) => resolve(error.message));
  });
}

/**
 * Waits until the edge itself answers each HTTP-01 token with its key authorization (asked on its own
 * port, by name), for at most `timeoutMs`: the CA is asked to validate only once the edge serves the
 * table with the tokens in it. nginx under load can reload after the table's publish wait, and a CA
 * that finds the previous order's answer marks the challenge invalid for good. Answers whether every
 * token was served; on false the validation goes ahead anyway and the CA says what it found.
 */
export async function untilEdgeServesTokens(
  ctx: AppContext,
  domain: string,
  challenges: { type: string; token: string; keyAuthorization: string }[],
  timeoutMs: number,
): Promise<boolean> {
  const tokens = challenges.filter((challenge) => challenge.type === 'http-01');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answers = await Promise.all(tokens.map((c) => fetchToken('127.0.0.1', ctx.edge.port(), domain, c.token)));
    const served = answers.every(
      (answer, i) => typeof answer !== 'string' && answer.status === 200 && answer.body.trim() === tokens[i]?.keyAuthorization,
    );
    if (served) return true;
    if (Date.now() >= deadline) return false;
    await sleep(250);
  }
}

/**
 * Why an HTTP-01 validation would fail, checked the way the CA checks: the name must resolve to
 * this machine, port 80 (ACME_HTTP_PORT) must answer there, and the edge must give the token's
 * key authorization for it.
 */
export async function httpChallengeDebug(ctx: AppContext, row: DomainRow): Promise<HttpChallengeDebug> {
  const checks: Check[] = [];
  const port = ctx.config.acmeHttpPort;
  if (row.isWildcard) {
    return {
      domain: row.domain,
      ready: false,
      checks: [
        { name: 'dns', ok: false, detail: 'A wildcard certificate is validated with DNS-01 (a TXT record), never HTTP-01' },
      ],
    };
  }
  const addresses = await resolveAddresses(row.domain, ctx.config.dnsServers);
  const own = ownAddresses(ctx);
  const here = addresses.filter((address) => own.has(address));
  checks.push(
    addresses.length === 0
      ? { name: 'dns', ok: false, detail: `${row.domain} does not resolve: create an A record pointing to this server` }
      : here.length === 0
        ? {
            name: 'dns',
            ok: false,
            detail: `${row.domain} points to ${addresses.join(', ')}, not to this server${ctx.config.publicIp ? ` (${ctx.config.publicIp})` : ''}`,
          }
        : { name: 'dns', ok: true, detail: `${row.domain} points here (${here.join(', ')})` },
  );
  const target = here[0] ?? addresses[0];
  const unreachable = target ? await tcpReachable(target, port) : 'the name does not resolve';
  checks.push(
    unreachable
      ? { name: 'port_80', ok: false, detail: `Port ${port} of ${target ?? row.domain}: ${unreachable}` }
      : { name: 'port_80', ok: true, detail: `Port ${port} of ${target} answers` },
  );
  const [order] = await ctx.db.select().from(domainOrders).where(eq(domainOrders.domainId, row.id)).limit(1);
  const challenge = order?.challenges.find((c) => c.type === 'http-01');
  if (!challenge) {
    checks.push({ name: 'token', ok: true, detail: 'No order in progress: the edge serves a token as soon as one exists' });
  } else if (!target || unreachable) {
    checks.push({ name: 'token', ok: false, detail: 'Not checked: port 80 cannot be reached' });
  } else {
    const answer = await fetchToken(target, port, row.domain, challenge.token);
    checks.push(
      typeof answer === 'string'
        ? { name: 'token', ok: false, detail: `Asking for the token failed: ${answer}` }
        : answer.status === 200 && answer.body.trim() === challenge.keyAuthorization
          ? { name: 'token', ok: true, detail: 'The edge answers the token with its key authorization' }
          : {
              name: 'token',
              ok: false,
              detail: `${ACME_CHALLENGE_PREFIX}${challenge.token} answered ${answer.status}${answer.status === 200 ? ' with something else than the key authorization' : ''}`,
            },
    );
  }
  return { domain: row.domain, ready: checks.every((check) => check.ok), checks };
}
