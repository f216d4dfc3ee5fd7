/**
 * Edge benchmark (`npm run bench`, or `node bench/build-and-run.mjs --only edge`): throughput and p99
 * at 200 connections (autocannon) against one upstream, a tiny Node HTTP server answering a small body,
 * deployed through the platform (so it runs under the process runtime, like any app), four ways:
 *  - direct: to the app's own port;
 *  - the Launchbay edge: to the edge's port with Host `{slug}.localhost`;
 *  - the edge over HTTPS: to its TLS port (PROXY_TLS_PORT 0: a free one) with SNI and Host a test name of
 *    the project (`bench.example.test`) whose certificate the platform got from Pebble (ACME, HTTP-01
 *    answered by the edge), the chain verified against Pebble's root; keep-alive as the others;
 *  - Caddy (/usr/bin/caddy): `reverse_proxy` to the same port, keep-alive with as many idle
 *    connections per host as there are load connections (Caddy's default keeps 32).
 * The machine is shared and noisy: after a warm-up of each, the runs interleave (A B C D, D C B A, ...)
 * and medians are reported. The CPU each side used during the runs is recorded too (/proc), which is
 * what tells a proxy that is slow from one that is starved: autocannon, the app and the proxy share
 * the same cores.
 * Results: bench/results/deploy-latest.json (key `edge`). Options: --quick (3 s runs).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { Domain } from '@launchbay/contract';
import { freePort, type Pebble, pebbleInstalled, sleep, startPebble, waitUntil } from '@launchbay/testkit';
import autocannon from 'autocannon';
import { loadEdgeConfig } from '../apps/edge/src/config';
import { processTree } from '../apps/server/src/engine/runtime/process/proc';
import { readDeploymentRecord, stateFile } from '../apps/server/src/engine/runtime/process/state';
import { askEdgeIdentity, edgePaths, readEdgeState } from '../packages/edge-protocol/src/index';
import {
  type BenchPlatform,
  cpuTicks,
  loadAverage,
  median,
  NODE_PACKAGE_JSON,
  nodeServerJs,
  printTable,
  procKb,
  quick,
  RESULTS_FILE,
  type Row,
  startBenchPlatform,
  TICKS_PER_SECOND,
  tempDir,
  untilServed,
  waitForDeployment,
  waitSettled,
  webPortOf,
  writeResults,
} from './deploy';

const CONNECTIONS = 200;
const LOAD_SECONDS = quick ? 3 : 10;
const WARMUP_SECONDS = quick ? 2 : 3;
/** Even, so each order (forward, reversed) runs as often as the other. */
const ROUNDS = quick ? 4 : 6;
const BODY = 'hello from the upstream\n';
const CADDY = '/usr/bin/caddy';
/** The name the HTTPS target is served under (Pebble's DNS answers 127.0.0.1 for every name). */
const HTTPS_NAME = 'bench.example.test';
/** The edge collects once its event loop was quiet for a whole look (apps/edge/src/memory.ts: every 10 s). */
const QUIET_WAIT_MS = 25_000;

/** The RSS of these processes together, in MB, and how many there were. */
function rssOf(pids: number[]): { mb: number; processes: number } {
  const kb = pids.reduce((sum, pid) => sum + procKb(`/proc/${pid}/status`, 'VmRSS'), 0);
  return { mb: Math.round(kb / 102.4) / 10, processes: pids.length };
}

type Target = {
  name: 'direct' | 'edge' | 'edgeHttps' | 'caddy' | 'nginx';
  url: string;
  headers: Record<string, string>;
  pids: () => number[];
  /** HTTPS: the SNI name and the only root trusted. */
  tls?: { servername: string; ca: string };
  /** The data folder of the platform whose edge logs this target's requests: its rows are written before the next run. */
  logsTo?: string;
  /** Whether it is as a sustained load finds it (the edge: grown to all the processes it may have); none: at once. */
  grown?: () => Promise<boolean>;
};

/** Warm-up runs at most, beyond the first, for a target to grow (the edge adds a worker after 2 s saturated). */
const GROWTH_WARMUPS = 5;

type Run = {
  requestsPerSecond: number;
  p50Ms: number;
  /**
   * Below p99: a run opens its connections at once, and over TLS the first request of each waits for its
   * handshake (200 of them queued on the edge): that is p99 of a short run, not the keep-alive traffic.
   */
  p97_5Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** CPU seconds per second of load: the proxy's processes, the app's, the platform's (Node + PostgreSQL), this process (autocannon). */
  cpu: Record<string, number>;
  /** The same per request, in µs: what each side costs whatever share of the machine it got. */
  cpuUsPerRequest: Record<string, number>;
  /** HTTPS: the handshakes whose chain verified against the trusted root and whose certificate is for the name. */
  tlsHandshakesVerified?: number;
};

async function startCaddy(upstreamPort: number): Promise<{ port: number; child: ChildProcess; dir: string } | null> {
  if (!fs.existsSync(CADDY)) {
    console.log(
      `  ${CADDY} is missing: the Caddy comparison is skipped. Install it with \`sudo apt-get install caddy\` (Debian/Ubuntu) and run again.`,
    );
    return null;
  }
  const dir = tempDir('lb-bench-caddy-');
  const port = await freePort();
  const caddyfile = path.join(dir, 'Caddyfile');
  fs.writeFileSync(
    caddyfile,
    `{
	admin off
	auto_https off
	log {
		level ERROR
	}
}

http://:${port} {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:${upstreamPort} {
		transport http {
			keepalive 2m
			keepalive_idle_conns ${CONNECTIONS * 2}
			keepalive_idle_conns_per_host ${CONNECTIONS * 2}
		}
	}
}
`,
  );
  const child = spawn(CADDY, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], {
    // Its own folders: nothing of Caddy's is written to this user's home.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, XDG_CONFIG_HOME: dir, XDG_DATA_HOME: dir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-8000);
  });
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`caddy exited (${child.exitCode}): ${stderr}`);
        try {
          const response = await fetch(`http://127.0.0.1:${port}/`);
          return (await response.text()) === BODY;
        } catch {
          return false;
        }
      },
      'Caddy to proxy to the upstream',
      15_000,
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { port, child, dir };
}

/** One request over TLS to the edge's TLS port with Node's default verification (the chain against `ca` only, the name). */
function httpsThroughEdge(
  port: number,
  servername: string,
  ca: string,
): Promise<{ status: number; body: string; protocol: string; cipher: string; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca, ALPNProtocols: ['http/1.1'] });
    socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
    socket.once('secureConnect', () => {
      const protocol = socket.getProtocol() ?? '';
      const cipher = socket.getCipher().standardName;
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256.replaceAll(':', '').toLowerCase() ?? '';
      socket.write(`GET / HTTP/1.1\r\nhost: ${servername}\r\nconnection: close\r\n\r\n`);
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () =>
        resolve({
          status: Number(text.slice(9, 12)),
          body: text.slice(text.indexOf('\r\n\r\n') + 4),
          protocol,
          cipher,
          fingerprint,
        }),
      );
    });
    socket.once('error', reject);
  });
}

/**
 * A certificate for HTTPS_NAME from Pebble through the platform: the ACME directory in the settings, the name
 * added to the project, provisioned (HTTP-01: Pebble asks the edge's plain port), until the edge's TLS port
 * serves it with a chain that verifies against Pebble's root.
 */
async function provisionCertificate(platform: BenchPlatform, projectId: number, pebble: Pebble) {
  const settings = await platform.api('PUT', '/settings', {
    acme_directory_url: pebble.directoryUrl,
    acme_contact_email: 'bench@example.com',
  });
  if (settings.status !== 200) throw new Error(`PUT /settings: ${settings.status} ${JSON.stringify(settings.body)}`);
  const added = await platform.api('POST', `/projects/${projectId}/custom-domains`, { domain: HTTPS_NAME });
  if (added.status !== 201) throw new Error(`adding ${HTTPS_NAME}: ${added.status} ${JSON.stringify(added.body)}`);
  const t0 = performance.now();
  const provision = await platform.api('POST', `/domains/${HTTPS_NAME}/provision`);
  if (provision.status !== 202)
    throw new Error(`provisioning ${HTTPS_NAME}: ${provision.status} ${JSON.stringify(provision.body)}`);
  const active = await waitUntil(
    async () => {
      const domain = (await platform.api<Domain>('GET', `/domains/${HTTPS_NAME}`)).body;
      if (domain.status === 'failed') throw new Error(`provisioning ${HTTPS_NAME} failed: ${domain.last_error}`);
      return domain.status === 'active' && domain.fingerprint ? domain : null;
    },
    `the certificate for ${HTTPS_NAME}`,
    120_000,
    250,
  );
  const issuedMs = Math.round(performance.now() - t0);
  const tlsPort = await waitUntil(() => readEdgeState(edgePaths(platform.dataDir).state)?.tlsPort, "the edge's TLS port", 30_000);
  const root = await pebble.issuingRoot();
  let last = '';
  const answer = await waitUntil(
    async () => {
      try {
        const got = await httpsThroughEdge(tlsPort, HTTPS_NAME, root);
        last = `${got.status} ${got.body.slice(0, 80)} ${got.fingerprint}`;
        return got.status === 200 && got.body === BODY && got.fingerprint === active.fingerprint ? got : null;
      } catch (error) {
        last = (error as Error).message;
        return null;
      }
    },
    `the edge to serve ${HTTPS_NAME} over HTTPS with its new certificate`,
    30_000,
    100,
  ).catch((error: Error) => {
    throw new Error(`${error.message} (last: ${last})`);
  });
  return { tlsPort, root, issuedMs, fingerprint: active.fingerprint as string, protocol: answer.protocol, cipher: answer.cipher };
}

async function load(target: Target, seconds: number, sideOf: Record<string, () => number[]>): Promise<Run> {
  const sides = Object.entries(sideOf);
  const before = Object.fromEntries(sides.map(([name, pids]) => [name, cpuTicks(pids())]));
  const self = process.cpuUsage();
  // autocannon connects with rejectUnauthorized: false whatever tlsOptions say, so verification is counted here:
  // Node calls checkServerIdentity only for a chain that verified against `ca`, and it checks the name.
  let verified = 0;
  const secure = target.tls
    ? {
        servername: target.tls.servername,
        tlsOptions: {
          ca: target.tls.ca,
          checkServerIdentity: (host: string, cert: tls.PeerCertificate) => {
            const error = tls.checkServerIdentity(host, cert);
            if (!error) verified++;
            return error;
          },
        },
      }
    : {};
  const t0 = performance.now();
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: target.headers,
    ...secure,
  });
  const elapsed = (performance.now() - t0) / 1000;
  const own = process.cpuUsage(self);
  const cpu: Record<string, number> = {};
  for (const [name, pids] of sides) cpu[name] = (cpuTicks(pids()) - (before[name] as number)) / TICKS_PER_SECOND / elapsed;
  cpu.autocannon = (own.user + own.system) / 1e6 / elapsed;
  const rate = Math.max(1, result.requests.average);
  const cpuUsPerRequest = Object.fromEntries(Object.entries(cpu).map(([key, value]) => [key, Math.round((value / rate) * 1e6)]));
  for (const key of Object.keys(cpu)) cpu[key] = Math.round((cpu[key] as number) * 100) / 100;
  return {
    cpuUsPerRequest,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p97_5Ms: result.latency.p97_5,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpu,
    ...(target.tls ? { tlsHandshakesVerified: verified } : {}),
  };
}

/** A target's runs summed up: medians of the figures, totals of the failures, and the runs, round by round. */
type Summary = Pick<Run, 'requestsPerSecond' | 'p50Ms' | 'p97_5Ms' | 'p99Ms' | 'errors' | 'non2xx' | 'cpuUsPerRequest'> & {
  tlsHandshakesVerifiedMin?: number;
  runs: Run[];
};

/**
 * Waits for the edge to have written every proxy-log row of the run: under a saturating burst its pacer
 * keeps them back until the burst is over, and their inserts must not load the next target's run. What
 * writing them costs (the edge's or nginx reader's process and PostgreSQL) is counted in the run's CPU
 * per request, as `afterRun`.
 */
async function writeRowsAfterRun(
  dataDir: string,
  run: Run,
  sideOf: Record<string, () => number[]>,
  seconds = LOAD_SECONDS,
): Promise<void> {
  const writers = () => [...(sideOf.proxy?.() ?? []), ...(sideOf.platform?.() ?? [])];
  const before = cpuTicks(writers());
  await proxyLogWritten(dataDir);
  const requests = run.requestsPerSecond * seconds;
  run.cpuUsPerRequest.afterRun = Math.round((((cpuTicks(writers()) - before) / TICKS_PER_SECOND) * 1e6) / Math.max(1, requests));
}

/** Until the edge has no proxy-log row waiting and wrote none in the last half second. */
async function proxyLogWritten(dataDir: string): Promise<void> {
  let lastWritten = -1;
  await waitUntil(
    async () => {
      const state = readEdgeState(edgePaths(dataDir).state);
      const log = state ? (await askEdgeIdentity(state))?.proxyLog : undefined;
      if (!log) return null;
      // Nothing waiting, and nothing more written since the last look (nginx's reader reads every 250 ms).
      const settled = log.buffered === 0 && !log.waiting && log.written === lastWritten;
      lastWritten = log.written;
      return settled ? true : null;
    },
    "the edge to write the run's proxy-log rows",
    30_000,
    500,
  );
}

/**
 * A warm-up of each target, then ROUNDS rounds in which every target takes its turn, the order
 * reversed every other round (A B C D, D C B A, ...): the two runs a ratio compares are next to each
 * other (edge beside direct and beside Caddy), and a machine that speeds up or slows down during a
 * run favours each side equally often rather than always the one that runs later.
 */
async function interleave(targets: Target[], sides: (target: Target) => Record<string, () => number[]>) {
  for (const target of targets) {
    // Measured as a sustained load finds it: the edge grows to its processes under load and keeps them
    // for minutes (EDGE_SCALE_DOWN_SECONDS), so it is warmed up until it has, then once more for the
    // new process's code to be warm too.
    let grown = target.grown ? await target.grown() : true;
    for (let warmUps = 1; ; warmUps++) {
      const warmUp = await load(target, WARMUP_SECONDS, sides(target));
      if (target.logsTo) await writeRowsAfterRun(target.logsTo, warmUp, sides(target), WARMUP_SECONDS);
      // Grown before this run: this run warmed what grew.
      if (grown || !target.grown || warmUps > GROWTH_WARMUPS) break;
      grown = await target.grown();
      if (grown) console.log(`  ${target.name} grew to all its processes during ${warmUps} warm-up run(s): one more`);
    }
  }
  const runs: Record<string, Run[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
      const run = await load(target, LOAD_SECONDS, sides(target));
      if (target.logsTo) await writeRowsAfterRun(target.logsTo, run, sides(target));
      runs[target.name]?.push(run);
      console.log(
        `  round ${round + 1} ${target.name.padEnd(9)} ${run.requestsPerSecond} req/s, p99 ${run.p99Ms} ms, errors ${run.errors}, non-2xx ${run.non2xx}${run.tlsHandshakesVerified === undefined ? '' : `, verified TLS handshakes ${run.tlsHandshakesVerified}`}, CPU share ${JSON.stringify(run.cpu)}, µs/request ${JSON.stringify(run.cpuUsPerRequest)}`,
      );
      await sleep(500);
    }
  }
  return runs;
}

/** Medians per target (and the runs themselves, for the results file). */
function summarize(runs: Record<string, Run[]>): Record<string, Summary> {
  return Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [
      name,
      {
        requestsPerSecond: median(list.map((r) => r.requestsPerSecond)),
        p50Ms: median(list.map((r) => r.p50Ms)),
        p97_5Ms: median(list.map((r) => r.p97_5Ms)),
        p99Ms: median(list.map((r) => r.p99Ms)),
        errors: list.reduce((s, r) => s + r.errors, 0),
        non2xx: list.reduce((s, r) => s + r.non2xx, 0),
        cpu: Object.fromEntries(Object.keys(list[0]?.cpu ?? {}).map((k) => [k, median(list.map((r) => r.cpu[k] ?? 0))])),
        cpuUsPerRequest: Object.fromEntries(
          Object.keys(list[0]?.cpuUsPerRequest ?? {}).map((k) => [k, median(list.map((r) => r.cpuUsPerRequest[k] ?? 0))]),
        ),
        ...(list[0]?.tlsHandshakesVerified === undefined
          ? {}
          : { tlsHandshakesVerifiedMin: Math.min(...list.map((r) => r.tlsHandshakesVerified ?? 0)) }),
        runs: list,
      },
    ]),
  );
}

/**
 * `a`'s throughput against `b`'s as the median of the rounds' ratios (the approach of run.ts): both
 * ran in the same round a few seconds apart, where the ratio of each side's median run may pair a
 * fast round with a slow one. This machine's speed moves by 2x from one round to the next (direct
 * read 28,020 / 13,119 / 28,963 / 18,870 / 28,382 req/s in one run): the medians made 0.28 of
 * rounds whose own ratios were 0.28 / 0.55 / 0.35 / 0.41 / 0.33.
 */
function roundRatio(a: Summary, b: Summary): { ratio: number; rounds: number[] } {
  const rounds = a.runs.map((run, i) => run.requestsPerSecond / Math.max(1, b.runs[i]?.requestsPerSecond ?? 0));
  return { ratio: median(rounds), rounds };
}

const roundsText = (ratio: { rounds: number[] }) => ratio.rounds.map((r) => r.toFixed(2)).join('/');

/** The nginx driver's processes (its master and workers), by the pid file it keeps in the data folder. */
function nginxTree(dataDir: string): number[] {
  try {
    const master = Number(fs.readFileSync(path.join(edgePaths(dataDir).dir, 'nginx', 'nginx.pid'), 'utf8'));
    return master > 0 ? processTree(master) : [];
  } catch {
    return [];
  }
}

type WrkRun = { requestsPerSecond: number; p99Ms: number; non2xx: number };
type WrkPhase = { direct: WrkRun; proxy: WrkRun; ratio: number; runs: { direct: WrkRun[]; proxy: WrkRun[] } };

const wrkInstalled = () => spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;

/**
 * The same load from wrk (C, two threads): autocannon runs in Node and takes about a core of this
 * machine's two for itself, which the proxy then lacks; wrk costs a fraction of that, as in nginx's
 * own benchmarks. Reported beside the autocannon figures, never instead of them.
 */
function wrkOnce(url: string, host: string | null, seconds: number): Promise<WrkRun> {
  return new Promise((resolve, reject) => {
    const args = [
      '-t',
      '2',
      '-c',
      String(CONNECTIONS),
      '-d',
      `${seconds}s`,
      '--latency',
      ...(host ? ['-H', `Host: ${host}`] : []),
      url,
    ];
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const rate = out.match(/Requests\/sec:\s+([\d.]+)/)?.[1];
      const p99 = out.match(/\s99%\s+([\d.]+)(us|ms|s)/);
      const non2xx = Number(out.match(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0);
      if (code !== 0 || !rate || !p99) return reject(new Error(`wrk ${args.join(' ')} failed: ${out}`));
      const scale = p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1;
      resolve({ requestsPerSecond: Math.round(Number(rate)), p99Ms: Number(p99[1]) * scale, non2xx });
    });
  });
}

/** Direct and through the proxy in turns with wrk, after a warm-up of each; medians and the ratio. */
async function wrkInterleaved(
  directUrl: string,
  proxyUrl: string,
  host: string,
  label: string,
  logsTo: string,
): Promise<WrkPhase> {
  await wrkOnce(directUrl, null, WARMUP_SECONDS);
  await wrkOnce(proxyUrl, host, WARMUP_SECONDS);
  await proxyLogWritten(logsTo);
  const runs = { direct: [] as WrkRun[], proxy: [] as WrkRun[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.direct.push(await wrkOnce(directUrl, null, LOAD_SECONDS));
    await sleep(500);
    runs.proxy.push(await wrkOnce(proxyUrl, host, LOAD_SECONDS));
    await proxyLogWritten(logsTo);
    console.log(
      `  wrk round ${round + 1}: direct ${runs.direct.at(-1)?.requestsPerSecond} req/s, ${label} ${runs.proxy.at(-1)?.requestsPerSecond} req/s`,
    );
  }
  const sum = (list: WrkRun[]): WrkRun => ({
    requestsPerSecond: median(list.map((r) => r.requestsPerSecond)),
    p99Ms: median(list.map((r) => r.p99Ms)),
    non2xx: list.reduce((total, r) => total + r.non2xx, 0),
  });
  const direct = sum(runs.direct);
  const proxy = sum(runs.proxy);
  return { direct, proxy, ratio: proxy.requestsPerSecond / direct.requestsPerSecond, runs };
}

async function main() {
  const results: Record<string, unknown> = {
    date: new Date().toISOString(),
    cpus: os.cpus().length,
    node: process.version,
    quick,
    loadAverageAtStart: os.loadavg(),
    connections: CONNECTIONS,
    loadSeconds: LOAD_SECONDS,
    rounds: ROUNDS,
  };
  let p: BenchPlatform | undefined;
  let caddy: Awaited<ReturnType<typeof startCaddy>> = null;
  let pebble: Pebble | undefined;
  const pebbleDir = tempDir('lb-bench-pebble-');
  try {
    // HTTPS: Pebble validates HTTP-01 on the edge's plain port, so that port is fixed beforehand (PROXY_PORT =
    // ACME_HTTP_PORT); the platform trusts Pebble's listener (ACME_CA_FILE) and resolves through its DNS.
    const env: Record<string, string> = {};
    if (pebbleInstalled()) {
      const proxyPort = await freePort();
      const dnsPort = await freePort();
      const caFile = path.join(pebbleDir, 'pebble-listener.pem');
      pebble = await startPebble({ httpPort: proxyPort, dnsPort, caFile, validityHours: 24 * 30 });
      Object.assign(env, {
        PROXY_PORT: String(proxyPort),
        PROXY_TLS_PORT: '0',
        ACME_HTTP_PORT: String(proxyPort),
        ACME_CA_FILE: caFile,
        DNS_SERVERS: pebble.dnsServer,
      });
    } else {
      console.log(
        '  /usr/bin/pebble or /usr/bin/pebble-challtestsrv is missing: the HTTPS target is skipped. Install them with `sudo apt-get install pebble` (Debian/Ubuntu) and run again.',
      );
    }
    p = await startBenchPlatform('edge', env);
    const platform = p;
    console.log('Edge throughput: deploying the upstream (a tiny Node HTTP server)...');
    const app = await platform.createProject('Upstream', { 'package.json': NODE_PACKAGE_JSON, 'server.js': nodeServerJs(BODY) });
    await waitForDeployment(platform, app.project.id, app.deploymentId);
    await waitSettled(platform, app.project.id, app.deploymentId);
    await untilServed(platform.edgePort, app.host, BODY);
    const appPort = webPortOf(platform, app.deploymentId);
    const record = readDeploymentRecord(stateFile(path.join(platform.dataDir, 'runtime'), app.deploymentId));
    const appPid = record?.processes.find((x) => x.type === 'web')?.pid;
    const edgePid = readEdgeState(edgePaths(platform.dataDir).state)?.pid;
    let https: Awaited<ReturnType<typeof provisionCertificate>> | undefined;
    if (pebble) {
      console.log(`HTTPS: a certificate for ${HTTPS_NAME} from Pebble through the platform (HTTP-01 through the edge)...`);
      https = await provisionCertificate(platform, app.project.id, pebble);
      console.log(
        `  issued in ${https.issuedMs} ms; the edge serves it on port ${https.tlsPort} (${https.protocol}, ${https.cipher}), verified against Pebble's root`,
      );
    }
    caddy = await startCaddy(appPort);
    const caddyPid = caddy?.child.pid;

    // The edge's processes at most, as the edge reads them from its environment.
    const edgeProcesses = loadEdgeConfig({ ...env, DATA_DIR: platform.dataDir }).maxProcesses;
    const edgeGrown = async () => {
      const state = readEdgeState(edgePaths(platform.dataDir).state);
      return ((state && (await askEdgeIdentity(state))?.processes) ?? 1) >= edgeProcesses;
    };
    const appTree = () => (appPid ? processTree(appPid) : []);
    const edgeTree = () => (edgePid ? processTree(edgePid) : []);

    const targets: Target[] = [
      { name: 'direct', url: `http://127.0.0.1:${appPort}/`, headers: {}, pids: () => [] },
      {
        name: 'edge',
        url: `http://127.0.0.1:${platform.edgePort}/`,
        headers: { host: app.host },
        pids: () => edgeTree(),
        logsTo: platform.dataDir,
        grown: edgeGrown,
      },
    ];
    // Edge beside direct and beside Caddy (the two ratios the issue names), HTTPS beside the rest.
    if (caddy) targets.push({ name: 'caddy', url: `http://127.0.0.1:${caddy.port}/`, headers: {}, pids: () => [caddyPid ?? -1] });
    if (https)
      targets.push({
        name: 'edgeHttps',
        url: `https://127.0.0.1:${https.tlsPort}/`,
        headers: { host: HTTPS_NAME },
        pids: () => edgeTree(),
        logsTo: platform.dataDir,
        tls: { servername: HTTPS_NAME, ca: https.root },
      });
    const sides = (target: Target) => ({
      proxy: target.pids,
      app: appTree,
      // The control plane and its PostgreSQL; the app and the edge are its (detached) children too.
      platform: () => {
        const others = new Set([...appTree(), ...edgeTree()]);
        return processTree(platform.process.pid).filter((pid) => !others.has(pid));
      },
    });

    console.log(
      `Load: ${CONNECTIONS} connections, ${targets.map((t) => t.name).join(' / ')} interleaved, ${ROUNDS} rounds of ${LOAD_SECONDS} s each after a ${WARMUP_SECONDS} s warm-up...`,
    );
    const edgeMemoryBefore = rssOf(edgeTree());
    const summary = summarize(await interleave(targets, sides));
    // What the edge keeps once the load is over: right after it, and once it has been quiet a while.
    const edgeMemoryAfter = rssOf(edgeTree());
    console.log(
      `Edge memory: ${edgeMemoryBefore.mb} MB before the load, ${edgeMemoryAfter.mb} MB after; quiet for ${QUIET_WAIT_MS / 1000} s...`,
    );
    await sleep(QUIET_WAIT_MS);
    const edgeMemoryQuiet = rssOf(edgeTree());
    const collections = fs
      .readFileSync(edgePaths(platform.dataDir).log, 'utf8')
      .split('\n')
      .filter((line) => line.includes('quiet again'));
    for (const line of collections) console.log(`  ${line}`);
    console.log(
      `  edge processes now: ${edgeTree()
        .map((pid) => `${pid} ${rssOf([pid]).mb} MB`)
        .join(', ')}`,
    );
    results.edgeMemory = {
      before: edgeMemoryBefore,
      afterLoad: edgeMemoryAfter,
      quiet: edgeMemoryQuiet,
      quietAfterSeconds: QUIET_WAIT_MS / 1000,
    };
    results.targets = summary;
    const direct = summary.direct;
    const edge = summary.edge;
    const viaCaddy = summary.caddy;
    const edgeHttps = summary.edgeHttps;
    if (!direct || !edge) throw new Error('no runs');
    const edgeToDirect = roundRatio(edge, direct);
    const edgeToCaddy = viaCaddy ? roundRatio(edge, viaCaddy) : null;
    const httpsToHttp = edgeHttps ? roundRatio(edgeHttps, edge) : null;
    const edgeVsDirect = edgeToDirect.ratio;
    const edgeVsCaddy = edgeToCaddy?.ratio ?? null;
    const httpsVsHttp = httpsToHttp?.ratio ?? null;
    const httpsP99VsHttpP99 = edgeHttps ? edgeHttps.p99Ms / Math.max(1, edge.p99Ms) : null;
    // Every connection of every run verified (a run opens CONNECTIONS at least), none failed.
    const httpsVerified = edgeHttps
      ? (edgeHttps.tlsHandshakesVerifiedMin ?? 0) >= CONNECTIONS && edgeHttps.errors === 0 && edgeHttps.non2xx === 0
      : null;
    results.ratios = {
      edgeVsDirect,
      edgeVsCaddy,
      caddyVsDirect: viaCaddy ? roundRatio(viaCaddy, direct).ratio : null,
      edgeP99VsCaddyP99: viaCaddy ? edge.p99Ms / Math.max(1, viaCaddy.p99Ms) : null,
      edgeHttpsVsEdgeHttp: httpsVsHttp,
      edgeHttpsP99VsEdgeHttpP99: httpsP99VsHttpP99,
    };
    results.caddy = caddy ? { binary: CADDY, keepaliveIdleConnsPerHost: CONNECTIONS * 2 } : 'missing: skipped';
    results.https = https
      ? {
          name: HTTPS_NAME,
          tlsPort: https.tlsPort,
          protocol: https.protocol,
          cipher: https.cipher,
          certificate: { issuer: 'Pebble', fingerprint: https.fingerprint, provisionToActiveMs: https.issuedMs },
          everyConnectionVerified: httpsVerified,
        }
      : 'pebble missing: skipped';
    // The nginx driver (Settings > Edge proxy): nginx takes over the edge's port with its own configuration
    // of the same route; then direct and nginx take turns, so the ratio comes from one phase of one run.
    let viaNginx: {
      direct: Summary;
      nginx: Summary;
      version: string;
      wrk: { nginx: WrkPhase; edge: WrkPhase } | null;
    } | null = null;
    const nginxVersion = spawnSync('nginx', ['-v'], { encoding: 'utf8' });
    if (nginxVersion.status === 0) {
      console.log('The nginx edge driver: switching the edge to nginx (Settings), direct and nginx interleaved...');
      const switched = await platform.api('PUT', '/settings', { edge_driver: 'nginx' });
      if (switched.status !== 200)
        throw new Error(`PUT /settings edge_driver nginx: ${switched.status} ${JSON.stringify(switched.body)}`);
      await untilServed(platform.edgePort, app.host, BODY);
      // The platform side here: its Node processes (the edge behind nginx reads nginx's access log) and
      // PostgreSQL (where the proxy-log rows go): what logging every request costs.
      const nginxSides = (target: Target) => ({
        proxy: target.pids,
        app: appTree,
        platform: () => {
          const others = new Set([...appTree(), ...nginxTree(platform.dataDir)]);
          const edgeNow = readEdgeState(edgePaths(platform.dataDir).state)?.pid;
          const mine = [...processTree(platform.process.pid), ...(edgeNow ? processTree(edgeNow) : [])];
          return [...new Set(mine)].filter((pid) => !others.has(pid));
        },
      });
      const phase = summarize(
        await interleave(
          [
            targets[0] as Target,
            {
              name: 'nginx',
              url: `http://127.0.0.1:${platform.edgePort}/`,
              headers: { host: app.host },
              pids: () => nginxTree(platform.dataDir),
              logsTo: platform.dataDir,
            },
          ],
          nginxSides,
        ),
      );
      const directUrl = `http://127.0.0.1:${appPort}/`;
      const edgeUrl = `http://127.0.0.1:${platform.edgePort}/`;
      const nginxWrk = wrkInstalled() ? await wrkInterleaved(directUrl, edgeUrl, app.host, 'nginx', platform.dataDir) : null;
      const back = await platform.api('PUT', '/settings', { edge_driver: 'embedded' });
      if (back.status !== 200) throw new Error(`PUT /settings edge_driver embedded: ${back.status}`);
      await untilServed(platform.edgePort, app.host, BODY);
      const edgeWrk = nginxWrk ? await wrkInterleaved(directUrl, edgeUrl, app.host, 'edge', platform.dataDir) : null;
      if (phase.direct && phase.nginx)
        viaNginx = {
          direct: phase.direct,
          nginx: phase.nginx,
          version: (nginxVersion.stderr.match(/nginx\/[\d.]+/) ?? ['nginx'])[0],
          wrk: nginxWrk && edgeWrk ? { nginx: nginxWrk, edge: edgeWrk } : null,
        };
    } else {
      console.log('  nginx is not installed: the nginx driver is skipped. Install it with `sudo apt-get install nginx`.');
    }
    const nginxToDirect = viaNginx ? roundRatio(viaNginx.nginx, viaNginx.direct) : null;
    const nginxVsDirect = nginxToDirect?.ratio ?? null;
    results.nginxDriver = viaNginx ?? 'nginx missing: skipped';
    (results.ratios as Record<string, number | null>).nginxVsDirect = nginxVsDirect;
    (results.ratios as Record<string, number | null>).nginxVsEdge = viaNginx
      ? viaNginx.nginx.requestsPerSecond / edge.requestsPerSecond
      : null;
    results.loadAverageAtEnd = os.loadavg();
    writeResults('edge', results);

    const line = (s: typeof direct) =>
      `${s.requestsPerSecond} req/s, p50 ${s.p50Ms} ms, p99 ${s.p99Ms} ms${s.errors || s.non2xx ? `, errors ${s.errors}, non-2xx ${s.non2xx}` : ''}; CPU µs/request: ${[
        'proxy',
        'app',
        'platform',
        'autocannon',
        'afterRun',
      ]
        .filter((k) => s.cpuUsPerRequest[k])
        .map((k) => `${k === 'afterRun' ? 'writing its log rows after the run' : k} ${s.cpuUsPerRequest[k]}`)
        .join(', ')}`;
    const rows: Row[] = [
      { name: `direct to the app, c=${CONNECTIONS}`, value: line(direct), target: '-', pass: null },
      { name: 'through the Launchbay edge', value: line(edge), target: '-', pass: null },
      edgeHttps
        ? {
            name: `through the edge over HTTPS (${https?.protocol}, keep-alive)`,
            value: line(edgeHttps),
            target: 'every connection verified',
            pass: httpsVerified,
          }
        : { name: 'through the edge over HTTPS', value: 'skipped: /usr/bin/pebble missing', target: '-', pass: null },
      viaCaddy
        ? { name: 'through Caddy (reverse_proxy, keep-alive)', value: line(viaCaddy), target: '-', pass: null }
        : { name: 'through Caddy', value: 'skipped: /usr/bin/caddy missing', target: '-', pass: null },
      {
        name: 'edge memory (RSS): before the load, after it, quiet',
        value: `${edgeMemoryBefore.mb} -> ${edgeMemoryAfter.mb} -> ${edgeMemoryQuiet.mb} MB ${QUIET_WAIT_MS / 1000} s later (processes ${edgeMemoryBefore.processes}/${edgeMemoryAfter.processes}/${edgeMemoryQuiet.processes})`,
        target: '-',
        pass: null,
      },
      {
        name: 'edge / direct throughput',
        value: `${edgeVsDirect.toFixed(2)} (median of the rounds' ratios ${roundsText(edgeToDirect)})`,
        target: '>= 0.30',
        pass: edgeVsDirect >= 0.3 && edge.errors === 0 && edge.non2xx === 0,
      },
      {
        name: 'edge / Caddy throughput',
        value: edgeToCaddy === null ? 'skipped' : `${edgeToCaddy.ratio.toFixed(2)} (rounds ${roundsText(edgeToCaddy)})`,
        target: '>= 1',
        pass: edgeVsCaddy === null ? null : edgeVsCaddy >= 1,
      },
      viaNginx
        ? {
            name: `through nginx (the nginx driver, ${viaNginx.version})`,
            value: line(viaNginx.nginx),
            target: '-',
            pass: null,
          }
        : { name: 'through nginx (the nginx driver)', value: 'skipped: nginx missing', target: '-', pass: null },
      {
        name: 'nginx driver / direct throughput (same phase)',
        value:
          nginxVsDirect === null || !viaNginx
            ? 'skipped'
            : `${nginxVsDirect.toFixed(2)} (direct ${viaNginx.direct.requestsPerSecond} req/s; rounds ${nginxToDirect ? roundsText(nginxToDirect) : '-'})`,
        target: '>= 0.5',
        pass:
          nginxVsDirect === null || !viaNginx
            ? null
            : nginxVsDirect >= 0.5 && viaNginx.nginx.errors === 0 && viaNginx.nginx.non2xx === 0,
      },
      ...(viaNginx?.wrk
        ? [
            {
              name: 'with wrk: nginx driver / direct (same phase)',
              value: `${viaNginx.wrk.nginx.ratio.toFixed(2)} (${viaNginx.wrk.nginx.proxy.requestsPerSecond} vs ${viaNginx.wrk.nginx.direct.requestsPerSecond} req/s; p99 ${viaNginx.wrk.nginx.proxy.p99Ms} ms vs ${viaNginx.wrk.nginx.direct.p99Ms} ms)`,
              target: '>= 0.5',
              pass: viaNginx.wrk.nginx.ratio >= 0.5 && viaNginx.wrk.nginx.proxy.non2xx === 0,
            },
            {
              name: 'with wrk: embedded edge / direct (same phase)',
              value: `${viaNginx.wrk.edge.ratio.toFixed(2)} (${viaNginx.wrk.edge.proxy.requestsPerSecond} vs ${viaNginx.wrk.edge.direct.requestsPerSecond} req/s; p99 ${viaNginx.wrk.edge.proxy.p99Ms} ms vs ${viaNginx.wrk.edge.direct.p99Ms} ms)`,
              target: '-',
              pass: null,
            },
          ]
        : []),
      {
        name: 'edge HTTPS / HTTP throughput',
        value: httpsToHttp === null ? 'skipped' : `${httpsToHttp.ratio.toFixed(2)} (rounds ${roundsText(httpsToHttp)})`,
        target: '-',
        pass: null,
      },
      {
        name: 'edge HTTPS / HTTP p99',
        value:
          httpsP99VsHttpP99 === null || !edgeHttps
            ? 'skipped'
            : `${httpsP99VsHttpP99.toFixed(2)} (${edgeHttps.p99Ms} ms vs ${edge.p99Ms} ms; p97.5 ${edgeHttps.p97_5Ms} vs ${edge.p97_5Ms} ms)`,
        target: '-',
        pass: null,
      },
    ];
    printTable(
      `Launchbay edge benchmark (median of ${ROUNDS} interleaved ${LOAD_SECONDS} s runs; ${os.cpus().length} CPUs, load average ${loadAverage(results.loadAverageAtStart)} at start, ${loadAverage(results.loadAverageAtEnd)} at the end)`,
      rows,
    );
    console.log(`\n  full figures (CPU per side too): ${RESULTS_FILE}`);
  } finally {
    if (caddy) {
      caddy.child.kill('SIGTERM');
      await new Promise((resolve) => (caddy?.child.exitCode !== null ? resolve(null) : caddy.child.once('exit', resolve)));
      fs.rmSync(caddy.dir, { recursive: true, force: true });
    }
    await p?.close();
    await pebble?.close();
    fs.rmSync(pebbleDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
