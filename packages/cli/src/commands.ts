import { spawn } from 'node:child_process';
import fs from 'node:fs';
import {
  currentUserSchema,
  type Deployment,
  deploymentListResponseSchema,
  deploymentSchema,
  envVarListResponseSchema,
  envVarSchema,
  formatDotenv,
  type ProjectDetail,
  parseDotenv,
  planImport,
  projectDetailSchema,
  projectListResponseSchema,
  triggerPipelineResponseSchema,
} from '@launchbay/contract';
import { z } from 'zod';
import { ApiClient, CliError } from './client';
import { type Login, readLogin, writeLogin } from './config';
import { ago, table } from './output';

export type Io = {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** The API key typed at the prompt (or piped) when `login` is not given --key. */
  readKey: () => Promise<string>;
  isTty: boolean;
};

const TERMINAL = new Set(['ready', 'failed', 'crashed', 'cancelled', 'paused']);

function client(io: Io): ApiClient {
  const login = readLogin(io.env);
  if (!login)
    throw new CliError(
      'Not logged in: run `launchbay login --url <platform address>` first (or set LAUNCHBAY_URL and LAUNCHBAY_API_KEY)',
    );
  return new ApiClient(login.url, login.key);
}

/** A project by slug, or by id when the argument is a number. */
async function project(api: ApiClient, ref: string | undefined): Promise<ProjectDetail> {
  if (!ref) throw new CliError('Which project? Give its slug (see `launchbay projects`)');
  const path = /^\d+$/.test(ref) ? `/projects/${ref}` : `/projects/by-slug/${encodeURIComponent(ref)}`;
  return api.call('GET', path, projectDetailSchema);
}

function environmentOf(detail: ProjectDetail, name: string | undefined) {
  const wanted = name ?? 'production';
  const found = detail.environments.find((env) => env.name === wanted || env.slug === wanted || String(env.id) === wanted);
  if (!found) {
    throw new CliError(
      `${detail.slug} has no environment "${wanted}" (it has: ${detail.environments.map((e) => e.name).join(', ')})`,
    );
  }
  return found;
}

export async function login(io: Io, options: { url?: string; key?: string }): Promise<number> {
  const url = options.url ?? io.env.LAUNCHBAY_URL ?? readLogin(io.env)?.url;
  if (!url) throw new CliError('Where is Launchbay? Pass --url http://your-host:3000');
  if (!/^https?:\/\//.test(url)) throw new CliError(`--url must start with http:// or https://, not ${url}`);
  const key = (options.key ?? (await io.readKey())).trim();
  if (!key)
    throw new CliError(
      'An API key is needed: create one in the console under API Keys, then pass it with --key or type it at the prompt',
    );
  const api = new ApiClient(url, key);
  const me = await api.call('GET', '/user/me', currentUserSchema);
  const file = writeLogin({ url: api.base, key } satisfies Login, io.env);
  io.out(`Logged in to ${api.base} as ${me.email} (key saved in ${file})`);
  return 0;
}

export async function projects(io: Io, options: { json?: boolean }): Promise<number> {
  const api = client(io);
  const list = await api.call('GET', '/projects?per_page=100', projectListResponseSchema);
  if (options.json) {
    io.out(JSON.stringify(list.projects, null, 2));
    return 0;
  }
  if (list.projects.length === 0) {
    io.out('No projects yet: create one in the console (Projects, New Project).');
    return 0;
  }
  io.out(
    table(
      ['NAME', 'SLUG', 'STATUS', 'DEPLOYED', 'URL'],
      list.projects.map((p) => [
        p.name,
        p.slug,
        p.last_deployment?.status ?? 'never deployed',
        ago(p.current_deployment?.ready_at ?? null),
        p.url || '-',
      ]),
    ),
  );
  return 0;
}

function logLine(data: string): string {
  try {
    const line = JSON.parse(data) as { process: string | null; stream: string; line: string };
    const source = line.process ?? line.stream;
    return source === 'build' || source === 'system' ? line.line : `[${source}] ${line.line}`;
  } catch {
    return data;
  }
}

/**
 * Prints a deployment's log as it arrives until the deployment settles (ready, failed, crashed,
 * cancelled or paused); answers the settled deployment.
 */
async function follow(io: Io, api: ApiClient, projectId: number, deploymentId: number, quiet: boolean): Promise<Deployment> {
  const controller = new AbortController();
  const path = `/projects/${projectId}/deployments/${deploymentId}`;
  let lastLineAt = Date.now();
  const printing = (async () => {
    if (quiet) return;
    for await (const event of api.events(`${path}/logs`, controller.signal)) {
      if (event.event === 'log') {
        lastLineAt = Date.now();
        io.out(logLine(event.data));
      }
    }
  })().catch((error: Error) => {
    if (!controller.signal.aborted) io.err(`(the log stream broke: ${error.message}; still waiting for the deployment)`);
  });
  try {
    for (;;) {
      const deployment = await api.call('GET', path, deploymentSchema);
      if (TERMINAL.has(deployment.status)) {
        // The last lines are stored in batches: read on until the log has been quiet for a moment.
        const deadline = Date.now() + 3000;
        while (!quiet && Date.now() < deadline && Date.now() - lastLineAt < 700) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return deployment;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    controller.abort();
    await printing;
  }
}

function settle(io: Io, deployment: Deployment, json: boolean | undefined, what: string): number {
  if (json) io.out(JSON.stringify(deployment, null, 2));
  else if (deployment.status === 'ready') {
    io.out(`\n✓ ${what} ${deployment.id} is live at ${deployment.url} (${deployment.commit_sha?.slice(0, 7) ?? 'no commit'})`);
  } else {
    io.err(`\n✗ ${what} ${deployment.id} ${deployment.status}${deployment.error ? `: ${deployment.error}` : ''}`);
  }
  return deployment.status === 'ready' ? 0 : 1;
}

export async function deploy(
  io: Io,
  ref: string | undefined,
  options: { branch?: string; commit?: string; environment?: string; json?: boolean; follow?: boolean },
): Promise<number> {
  const api = client(io);
  const detail = await project(api, ref);
  const environment = options.environment ? environmentOf(detail, options.environment) : null;
  const body = {
    ...(options.branch ? { branch: options.branch } : {}),
    ...(options.commit ? { commit: options.commit } : {}),
    ...(environment ? { environment_id: environment.id } : {}),
  };
  const triggered = await api.call('POST', `/projects/${detail.id}/trigger-pipeline`, triggerPipelineResponseSchema, body);
  if (options.follow === false) {
    io.out(options.json ? JSON.stringify(triggered) : `Deployment ${triggered.deployment_id} queued`);
    return 0;
  }
  if (!options.json) io.out(`Deployment ${triggered.deployment_id} of ${detail.slug} queued: following its log\n`);
  const settled = await follow(io, api, detail.id, triggered.deployment_id, Boolean(options.json));
  return settle(io, settled, options.json, 'Deployment');
}

export async function logs(io: Io, ref: string | undefined, options: { deployment?: string; follow?: boolean }): Promise<number> {
  const api = client(io);
  const detail = await project(api, ref);
  const deploymentId = options.deployment ? Number(options.deployment) : detail.last_deployment?.id;
  if (!deploymentId || !Number.isInteger(deploymentId)) throw new CliError(`${detail.slug} has no deployment yet`);
  const path = `/projects/${detail.id}/deployments/${deploymentId}/logs`;
  if (!options.follow) {
    io.out((await api.text(path)).trimEnd());
    return 0;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  for await (const event of api.events(path, controller.signal)) {
    if (event.event === 'log') {
      const line = JSON.parse(event.data) as { at: string; process: string | null; stream: string; line: string };
      io.out(`${line.at} ${line.process ?? line.stream} ${line.line}`);
    }
  }
  return 0;
}

export async function rollback(
  io: Io,
  ref: string | undefined,
  target: string | undefined,
  options: { json?: boolean },
): Promise<number> {
  const api = client(io);
  const detail = await project(api, ref);
  let targetId = target ? Number(target) : null;
  if (target && !Number.isInteger(targetId)) throw new CliError(`Not a deployment id: ${target}`);
  if (!targetId) {
    // The newest earlier deployment that went live and still has its build.
    const production = environmentOf(detail, 'production');
    const list = await api.call('GET', `/projects/${detail.id}/deployments?per_page=100`, deploymentListResponseSchema);
    const candidates = list.deployments.filter(
      (d) =>
        d.environment_id === production.id &&
        d.ready_at &&
        d.build_kept &&
        !d.is_current &&
        d.id !== production.current_deployment_id,
    );
    const current = production.current_deployment_id ?? Number.POSITIVE_INFINITY;
    const earlier =
      candidates.filter((d) => d.id < current).sort((a, b) => b.id - a.id)[0] ?? candidates.sort((a, b) => b.id - a.id)[0];
    if (!earlier) throw new CliError(`${detail.slug} has no earlier deployment to roll back to`);
    targetId = earlier.id;
  }
  const triggered = await api.call(
    'POST',
    `/projects/${detail.id}/deployments/${targetId}/rollback`,
    triggerPipelineResponseSchema,
  );
  if (!options.json)
    io.out(`Rolling back ${detail.slug} to deployment ${targetId} (as deployment ${triggered.deployment_id}): no rebuild`);
  const settled = await follow(io, api, detail.id, triggered.deployment_id, true);
  return settle(io, settled, options.json, 'Rollback');
}

const envValueSchema = z.object({ value: z.string() });

export async function envPull(
  io: Io,
  ref: string | undefined,
  options: { environment?: string; file?: string },
): Promise<number> {
  const api = client(io);
  const detail = await project(api, ref);
  const environment = environmentOf(detail, options.environment);
  const list = await api.call('GET', `/projects/${detail.id}/env-vars`, envVarListResponseSchema);
  const mine = list.env_vars.filter((v) => v.environment_ids.includes(environment.id)).sort((a, b) => a.key.localeCompare(b.key));
  const entries: { key: string; value: string }[] = [];
  for (const variable of mine) {
    const { value } = await api.call(
      'GET',
      `/projects/${detail.id}/env-vars/${encodeURIComponent(variable.key)}/value?environment_id=${environment.id}`,
      envValueSchema,
    );
    entries.push({ key: variable.key, value });
  }
  const text = formatDotenv(entries, `${detail.slug} (${environment.name}), pulled ${new Date().toISOString()}`);
  if (options.file === '-') {
    io.out(text.trimEnd());
    return 0;
  }
  const file = options.file ?? '.env';
  fs.writeFileSync(file, text, { mode: 0o600 });
  io.out(`Wrote ${entries.length} variable${entries.length === 1 ? '' : 's'} of ${detail.slug} (${environment.name}) to ${file}`);
  return 0;
}

export async function envPush(
  io: Io,
  ref: string | undefined,
  options: { environment?: string; file?: string },
): Promise<number> {
  const file = options.file ?? '.env';
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const parsed = parseDotenv(text);
  if (parsed.problems.length > 0) {
    throw new CliError(
      `${file} has lines that are not KEY=value:\n${parsed.problems.map((p) => `  line ${p.line}: ${p.message}`).join('\n')}`,
    );
  }
  const api = client(io);
  const detail = await project(api, ref);
  const environment = environmentOf(detail, options.environment);
  const list = await api.call('GET', `/projects/${detail.id}/env-vars`, envVarListResponseSchema);
  const plan = planImport(parsed.entries, list.env_vars, [environment.id]);
  for (const op of plan.ops) {
    const base = `/projects/${detail.id}/env-vars`;
    if (op.kind === 'create') {
      await api.call('POST', base, envVarSchema, { key: op.key, value: op.value, environment_ids: op.environment_ids });
    } else if (op.kind === 'update') {
      await api.call('PUT', `${base}/${op.id}`, envVarSchema, { value: op.value });
    } else {
      await api.call('PUT', `${base}/${op.id}`, envVarSchema, { environment_ids: op.environment_ids });
    }
  }
  io.out(
    `${detail.slug} (${environment.name}): ${plan.added.length} added, ${plan.updated.length} updated. They apply from the next deployment: \`launchbay deploy ${detail.slug}\``,
  );
  return 0;
}

export async function open(io: Io, ref: string | undefined, options: { print?: boolean; environment?: string }): Promise<number> {
  const api = client(io);
  const detail = await project(api, ref);
  const url = options.environment ? environmentOf(detail, options.environment).url : detail.url;
  if (!url) throw new CliError(`${detail.slug} has no address yet`);
  io.out(url);
  if (options.print || !io.isTty) return 0;
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => io.err(`(could not start ${opener}: open the address yourself)`));
  child.unref();
  return 0;
}
