import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type GitServer, startGitServer } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Api, apiClient } from '../helpers/api';
import { getThroughEdge } from '../helpers/edge';
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestPlatform, type TestPlatform } from '../helpers/platform';

/**
 * Real apps nobody here wrote, built the way their users build them: the templates shipped in the
 * create-vite package and an Express server, their dependencies from the npm registry. They build
 * once per CI run (the embedded-database run on the platform's own Node), not again in the
 * external-database and other-Node runs, which test the same pipeline.
 */
const onceOnly = inject('externalPostgresUrl') !== null || process.env.LAUNCHBAY_NODE_LINE_RUN === '1';

type Deployment = { id: number; status: string; error: string | null };
const TOKEN = 'template-token';
let platform: TestPlatform;
let api: Api;
let admin: string;
let git: GitServer;

beforeAll(async () => {
  if (onceOnly) return;
  git = await startGitServer({ token: TOKEN });
  platform = await startTestPlatform();
  api = apiClient(platform.url);
  admin = await api.login(ADMIN_EMAIL, ADMIN_PASSWORD);
}, 120_000);
afterAll(async () => {
  await platform?.close();
  await git?.close();
});

/** A create-vite template as a user gets it: every file, `_gitignore` named `.gitignore`. */
function template(name: string): Record<string, string> {
  const root = path.join(path.dirname(createRequire(import.meta.url).resolve('create-vite/package.json')), `template-${name}`);
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(root, full).replace(/(^|\/)_gitignore$/, '$1.gitignore')] = fs.readFileSync(full, 'utf8');
    }
  };
  walk(root);
  return files;
}

function viaEdge(host: string, urlPath = '/') {
  return getThroughEdge(platform.ctx.edge.port(), host, { path: urlPath });
}

async function deploy(
  name: string,
  files: Record<string, string>,
): Promise<{ slug: string; deployment: Deployment; log: string }> {
  const repo = await git.createRepo(`templates/${name}`, files);
  const created = await api.call<{ id: number; slug: string; last_deployment: { id: number } }>('POST', '/projects', {
    token: admin,
    body: { name, git_url: repo.url, git_token: TOKEN, branch: 'main' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const { id } = created.body;
  let deployment: Deployment | undefined;
  for (let i = 0; i < 1500; i++) {
    deployment = (
      await api.call<Deployment>('GET', `/projects/${id}/deployments/${created.body.last_deployment.id}`, { token: admin })
    ).body;
    if (['ready', 'failed', 'crashed'].includes(deployment.status)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const log = (
    await api.call<string>('GET', `/projects/${id}/deployments/${created.body.last_deployment.id}/logs`, { token: admin })
  ).body;
  expect(deployment?.status, `${deployment?.error}\n${log}`).toBe('ready');
  return { slug: created.body.slug, deployment: deployment as Deployment, log };
}

describe.skipIf(onceOnly)('templates from the registry go live', { timeout: 300_000 }, () => {
  it('create-vite react-ts: npm install, tsc and vite build, served by the edge as a single-page app', async () => {
    const { slug, log } = await deploy('vite-react-ts', template('react-ts'));
    expect(log).toContain('vite');
    const page = await viaEdge(`${slug}.localhost`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root"></div>');
    const script = page.body.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeTruthy();
    const bundle = await viaEdge(`${slug}.localhost`, script);
    expect(bundle.status).toBe(200);
    expect(bundle.type).toContain('javascript');
    // Client-side routes answer with the app.
    expect((await viaEdge(`${slug}.localhost`, '/some/client/route')).body).toContain('<div id="root"></div>');
  });

  it('create-vite vanilla', async () => {
    const { slug } = await deploy('vite-vanilla', template('vanilla'));
    const page = await viaEdge(`${slug}.localhost`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="app"></div>');
  });

  it('an Express server', async () => {
    const { slug } = await deploy('express-app', {
      'package.json': JSON.stringify({
        name: 'express-app',
        version: '1.0.0',
        main: 'index.js',
        dependencies: { express: '^5.1.0' },
      }),
      'index.js': `const express = require('express');
const app = express();
app.get('/', (req, res) => res.send('Hello from Express ' + require('express/package.json').version));
app.listen(process.env.PORT, () => console.log('listening on ' + process.env.PORT));
`,
    });
    const page = await viaEdge(`${slug}.localhost`);
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/^Hello from Express 5\./);
  });
});
