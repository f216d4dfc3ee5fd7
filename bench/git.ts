/**
 * Git benchmarks (`npm run bench`, or `node bench/build-and-run.mjs --only git`): a platform on a new
 * data folder, GitHub played by the testkit's stand-in (its REST API and the repositories over git),
 * a project created from a connected repository (a static site), its webhook registered on the
 * stand-in. Signed deliveries are sent the way GitHub sends them.
 *  - webhook delivery to deployment started: from sending a push delivery to the deployment's
 *    `building` state (the pipeline took it), and to the delivery's answer (median of N);
 *  - preview from pull-request payload to live: from sending `pull_request` `opened` for a new
 *    branch to the first answer through the edge at `pr-{number}-{project}` with the branch's content.
 * Results: bench/results/deploy-latest.json (key `git`).
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { Deployment, ProjectDetail, Repository } from '@launchbay/contract';
import { startGitHostStandIn, waitUntil } from '@launchbay/testkit';
import { loadAverage, median, printTable, quick, type Row, sleep, startBenchPlatform, untilServed, writeResults } from './deploy';

const ROUNDS = quick ? 3 : 10;
const PREVIEWS = quick ? 2 : 5;

async function signedDelivery(url: string, secret: string, event: string, payload: unknown) {
  const body = JSON.stringify(payload);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': crypto.randomUUID(),
      'x-hub-signature-256': `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as { outcome: string; deployment_id: number | null } };
}

async function main() {
  const began = performance.now();
  const github = await startGitHostStandIn({ kind: 'github', token: 'ghp_bench_token', login: 'bench' });
  const p = await startBenchPlatform('git');
  try {
    const settings = await p.api('PUT', '/settings', { external_url: p.url, preview_environments_enabled: true });
    if (settings.status !== 200) throw new Error(`settings: ${JSON.stringify(settings.body)}`);
    const provider = await p.api('POST', '/git-providers/github/pat', {
      name: 'GitHub',
      token: github.token,
      base_url: github.baseUrl,
    });
    if (provider.status !== 201) throw new Error(`provider: ${JSON.stringify(provider.body)}`);
    const repo = await github.createRepo('bench/site', { 'index.html': '<h1>first</h1>' });
    const synced = await p.api<{ connections: { id: number }[] }>('GET', '/git-connections');
    await p.api('POST', `/git-connections/${synced.body.connections[0]?.id}/sync`);
    const repository = await p.api<Repository>('GET', '/repositories/bench/site');
    const created = await p.api<ProjectDetail>('POST', '/projects', {
      name: 'Hooked',
      repository_id: repository.body.id,
      branch: 'main',
    });
    if (created.status !== 201) throw new Error(`project: ${JSON.stringify(created.body)}`);
    const project = created.body;
    await p.api('PATCH', `/projects/${project.id}/deployment-config`, { previews_enabled: true });
    const secret = github.hooks.find((h) => h.repo === 'bench/site')?.secret;
    if (!secret) throw new Error('no webhook was registered on the stand-in');
    const hookUrl = `${p.url}/webhooks/git/${project.id}`;
    await untilServed(p.edgePort, `${project.slug}.localhost`, 'first');

    // Webhook delivery to deployment started.
    const toStarted: number[] = [];
    const toAnswer: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const sha = await repo.commit({ 'index.html': `<h1>push ${round}</h1>` }, `Push ${round}`);
      const sent = performance.now();
      const answer = await signedDelivery(hookUrl, secret, 'push', {
        ref: 'refs/heads/main',
        after: sha,
        deleted: false,
        repository: { full_name: 'bench/site' },
      });
      toAnswer.push(performance.now() - sent);
      if (answer.body.outcome !== 'deployed' || !answer.body.deployment_id)
        throw new Error(`push ${round}: ${JSON.stringify(answer.body)}`);
      const id = answer.body.deployment_id;
      await waitUntil(
        async () => {
          const read = await p.api<Deployment>('GET', `/projects/${project.id}/deployments/${id}`);
          return read.body.status !== 'queued' ? read.body : null;
        },
        `deployment ${id} to start`,
        30_000,
        5,
      );
      toStarted.push(performance.now() - sent);
      await untilServed(p.edgePort, `${project.slug}.localhost`, `push ${round}`);
      await sleep(200);
    }

    // Preview from pull-request payload to live.
    const toLive: number[] = [];
    for (let n = 1; n <= PREVIEWS; n++) {
      const marker = `preview ${n} ${crypto.randomUUID().slice(0, 8)}`;
      const sha = await repo.commit({ 'index.html': `<h1>${marker}</h1>` }, `PR ${n}`, { branch: `feature-${n}` });
      const sent = performance.now();
      const answer = await signedDelivery(hookUrl, secret, 'pull_request', {
        action: 'opened',
        number: n,
        pull_request: {
          number: n,
          title: `Feature ${n}`,
          html_url: `${github.baseUrl}/bench/site/pull/${n}`,
          user: { login: 'bench' },
          head: { ref: `feature-${n}`, sha, repo: { full_name: 'bench/site' } },
          base: { ref: 'main', repo: { full_name: 'bench/site' } },
        },
      });
      if (answer.body.outcome !== 'deployed') throw new Error(`preview ${n}: ${JSON.stringify(answer.body)}`);
      const live = await untilServed(p.edgePort, `pr-${n}-${project.slug}.localhost`, marker, 60_000, 5);
      toLive.push(live.at - sent);
    }

    const results = {
      date: new Date().toISOString(),
      cpus: os.cpus().length,
      node: process.version,
      quick,
      loadAverageAtStart: os.loadavg(),
      webhookToStarted: { medianMs: median(toStarted), maxMs: Math.max(...toStarted), samplesMs: toStarted },
      webhookToAnswer: { medianMs: median(toAnswer), samplesMs: toAnswer },
      previewToLive: { medianMs: median(toLive), maxMs: Math.max(...toLive), samplesMs: toLive },
      totalSeconds: Math.round((performance.now() - began) / 1000),
    };
    writeResults('git', results);
    const rows: Row[] = [
      {
        name: `webhook delivery to deployment started (median of ${ROUNDS})`,
        value: `${results.webhookToStarted.medianMs.toFixed(0)} ms (max ${results.webhookToStarted.maxMs.toFixed(0)} ms; answered in ${results.webhookToAnswer.medianMs.toFixed(0)} ms)`,
        target: '< 1 s',
        pass: results.webhookToStarted.medianMs < 1000,
      },
      {
        name: `preview, pull-request payload to live, static site (median of ${PREVIEWS})`,
        value: `${(results.previewToLive.medianMs / 1000).toFixed(2)} s (max ${(results.previewToLive.maxMs / 1000).toFixed(2)} s)`,
        target: '< 5 s',
        pass: results.previewToLive.medianMs < 5000,
      },
    ];
    printTable(
      `Launchbay git benchmark (${os.cpus().length} CPUs; load average ${loadAverage(results.loadAverageAtStart)})`,
      rows,
    );
  } finally {
    await p.close();
    await github.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
