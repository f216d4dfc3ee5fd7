/**
 * The platform as a git remote (as Heroku, Dokku and Piku users expect): `git push
 * https://{platform}/git/{slug}.git main`, with an API key as the HTTP password, stores the
 * commits in the project's own bare repository (DATA_DIR/git/{id}.git) through git's own
 * smart-HTTP backend (`git http-backend`), and a post-receive hook asks the platform to deploy
 * the pushed head of each environment's branch. The hook prints the build log as it runs, so the
 * push's output ends with the live address (or the failure).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../../context';
import { git, gitRemoteRoot, projectRepoDir } from '../../engine/pipeline/local-remote';
import type { Principal } from '../../lib/http';
import { deploymentLogLinesAfter, getDeploymentRow, startDeployment } from '../deployments/service';
import { environmentUrl, listEnvironmentRows } from '../environments/service';
import type { ProjectRow } from '../projects/service';

const ZERO_SHA = /^0+$/;
const TERMINAL = new Set(['ready', 'failed', 'crashed', 'cancelled', 'paused']);
/** How long a push waits for its deployment before it tells the user to watch the console instead. */
const FOLLOW_MS = 15 * 60_000;

/** The hook git runs after a push: it hands the pushed refs to the platform and prints its answer. */
const HOOK_JS = `// Written by Launchbay: tells the platform what was pushed and prints the deployment as it goes.
'use strict';
const http = require('node:http');
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const request = http.request(process.env.LAUNCHBAY_HOOK_URL, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'x-launchbay-push-token': process.env.LAUNCHBAY_PUSH_TOKEN || '' },
  }, (response) => {
    response.setEncoding('utf8');
    response.on('data', (chunk) => process.stdout.write(chunk));
    response.on('end', () => process.exit(0));
  });
  request.on('error', (error) => { console.log('Launchbay could not start the deployment: ' + error.message); process.exit(0); });
  request.end(input);
});
`;

/** Creates the project's bare repository (once) with the hook, its HEAD on the production branch. */
export async function ensureProjectRepo(ctx: AppContext, project: ProjectRow): Promise<string> {
  const dir = projectRepoDir(ctx.config.dataDir, project.id);
  if (!fs.existsSync(path.join(dir, 'HEAD'))) {
    fs.mkdirSync(gitRemoteRoot(ctx.config.dataDir), { recursive: true, mode: 0o700 });
    const init = await git(['init', '--bare', '--quiet', dir]);
    if (init.code !== 0) throw new Error(`Could not create the git remote: ${init.stderr.trim()}`);
    await git(['symbolic-ref', 'HEAD', `refs/heads/${project.branch}`], dir);
    // Pushes are whole: a push that does not apply leaves nothing; objects are checked as they arrive.
    await git(['config', 'receive.fsckObjects', 'true'], dir);
    await git(['config', 'http.receivepack', 'true'], dir);
  }
  const hooks = path.join(dir, 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  const hookJs = path.join(hooks, 'launchbay-post-receive.cjs');
  if (!fs.existsSync(hookJs) || fs.readFileSync(hookJs, 'utf8') !== HOOK_JS) fs.writeFileSync(hookJs, HOOK_JS);
  const hook = path.join(hooks, 'post-receive');
  const script = `#!/bin/sh\nexec "$LAUNCHBAY_NODE" "$GIT_DIR/hooks/launchbay-post-receive.cjs"\n`;
  if (!fs.existsSync(hook) || fs.readFileSync(hook, 'utf8') !== script) fs.writeFileSync(hook, script, { mode: 0o755 });
  return dir;
}

type Push = { project: ProjectRow; principal: Principal; expires: number };
const pushes = new Map<string, Push>();

/** A one-time token the hook of this push presents: only the push that started it may deploy. */
export function issuePushToken(project: ProjectRow, principal: Principal): string {
  const now = Date.now();
  for (const [token, push] of pushes) if (push.expires < now) pushes.delete(token);
  const token = crypto.randomBytes(24).toString('base64url');
  pushes.set(token, { project, principal, expires: now + FOLLOW_MS + 60_000 });
  return token;
}

export function redeemPushToken(token: string | undefined): Push | null {
  if (!token) return null;
  const push = pushes.get(token);
  pushes.delete(token ?? '');
  return push && push.expires >= Date.now() ? push : null;
}

/**
 * What the hook reported (`<old> <new> <ref>` per line): deploys the pushed head of every
 * environment that follows a pushed branch, writing what happens for the pusher to see.
 */
export async function deployPush(ctx: AppContext, push: Push, refs: string, write: (line: string) => void): Promise<void> {
  const { project, principal } = push;
  const environments = await listEnvironmentRows(ctx, project.id);
  const started: { id: number; environment: (typeof environments)[number] }[] = [];
  for (const line of refs.split('\n')) {
    const [, newSha, ref] = line.trim().split(/\s+/);
    if (!newSha || !ref?.startsWith('refs/heads/')) continue;
    const branch = ref.slice('refs/heads/'.length);
    if (ZERO_SHA.test(newSha)) {
      write(`Deleted branch ${branch}: nothing to deploy`);
      continue;
    }
    const targets = environments.filter((env) => env.branch === branch);
    if (targets.length === 0) {
      const production = environments.find((env) => env.isProduction);
      write(
        `Stored ${branch} (${newSha.slice(0, 7)}): no environment deploys it${production ? ` (production deploys ${production.branch})` : ''}`,
      );
      continue;
    }
    for (const environment of targets) {
      const row = await startDeployment(ctx, {
        project,
        environment,
        trigger: 'git_push',
        commit: newSha,
        branch,
        createdBy: principal.userId,
      });
      started.push({ id: row.id, environment });
      write(`Deploying ${newSha.slice(0, 7)} to ${environment.name} (deployment ${row.id})`);
    }
  }
  for (const { id, environment } of started) await followDeployment(ctx, project, id, environment, write);
}

async function followDeployment(
  ctx: AppContext,
  project: ProjectRow,
  deploymentId: number,
  environment: Parameters<typeof environmentUrl>[2],
  write: (line: string) => void,
): Promise<void> {
  let lastLine = 0;
  const deadline = Date.now() + FOLLOW_MS;
  const drain = async () => {
    const lines = await deploymentLogLinesAfter(ctx, deploymentId, lastLine);
    for (const line of lines) {
      write(line.line);
      lastLine = line.id;
    }
    return lines.length;
  };
  for (;;) {
    await drain();
    const row = await getDeploymentRow(ctx, project.id, deploymentId);
    if (TERMINAL.has(row.status)) {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the last batch of log lines
      while ((await drain()) > 0);
      if (row.status === 'ready') write(`\nLive at ${await environmentUrl(ctx, project.slug, environment)}`);
      else write(`\nDeployment ${deploymentId} ${row.status}${row.error ? `: ${row.error}` : ''}`);
      return;
    }
    if (Date.now() > deadline) {
      write(
        `\nDeployment ${deploymentId} is still ${row.status}: follow it in the console or with \`launchbay logs ${project.slug} -f\``,
      );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
