/**
 * What a repository's branch would build as, before a project exists: its head commit is fetched
 * (shallow, with the provider's token) into a temp folder and read like a deployment reads it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LivePreset } from '@launchbay/contract';
import type { AppContext } from '../../context';
import { resolveBuildPlan } from '../../engine/pipeline/config';
import { fetchCommit, GitSourceError, knownHostsPath } from '../../engine/pipeline/source';
import { badRequest } from '../../lib/errors';
import { getSettings } from '../settings/service';
import { getConnectionRow, getProviderRow, providerToken, type RepositoryRow, tokenUserFor } from './service';

const FETCH_MS = 60_000;

export async function livePreset(
  ctx: AppContext,
  repository: RepositoryRow,
  branch: string,
  rootDirectory = '.',
): Promise<LivePreset> {
  const connection = await getConnectionRow(ctx, repository.connectionId);
  const provider = await getProviderRow(ctx, connection.providerId);
  const settings = await getSettings(ctx);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'launchbay-preset-'));
  try {
    const commit = await fetchCommit({
      url: repository.cloneUrl,
      token: await providerToken(ctx, provider),
      tokenUser: tokenUserFor(provider.providerType === 'github' ? 'github' : 'gitlab'),
      branch,
      dir: path.join(dir, 'src'),
      allowPrivateNetwork: provider.savedByAdmin || settings.allow_private_network_targets,
      knownHostsFile: knownHostsPath(ctx.config.dataDir),
      timeoutMs: FETCH_MS,
    });
    const appDir = path.join(dir, 'src', rootDirectory);
    if (!fs.existsSync(appDir)) {
      const message = `The folder ${rootDirectory} does not exist on ${branch}`;
      throw badRequest(message, [{ path: 'querystring.root_directory', message }]);
    }
    const plan = await resolveBuildPlan(appDir);
    const has = (name: string) => fs.existsSync(path.join(appDir, name));
    const base = {
      repository_id: repository.id,
      branch,
      commit_sha: commit.sha,
      has_launchbay_json: has('launchbay.json'),
      has_procfile: has('Procfile'),
    };
    if ('errors' in plan) {
      return {
        ...base,
        preset: null,
        preset_name: null,
        install_command: null,
        build_command: null,
        start_command: null,
        output_directory: null,
        port: null,
        errors: plan.errors.map((e) => ({ path: `${e.source}: ${e.path}`, message: e.message })),
      };
    }
    return {
      ...base,
      preset: plan.preset,
      preset_name: plan.presetName,
      install_command: plan.installCommand,
      build_command: plan.buildCommand,
      start_command: plan.processes.find((p) => p.type === 'web')?.command ?? null,
      output_directory: plan.outputDirectory,
      port: plan.port,
      errors: [],
    };
  } catch (error) {
    if (error instanceof GitSourceError)
      throw badRequest(error.message, [
        { path: error.field === 'branch' ? 'querystring.branch' : 'params.repository_id', message: error.message },
      ]);
    throw error;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
