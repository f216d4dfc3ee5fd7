/**
 * What a connected repository's branch would build as, before a project exists: read with the
 * provider's token (engine/pipeline/detect.ts does the fetch and the reading).
 */
import type { LivePreset } from '@launchbay/contract';
import type { AppContext } from '../../context';
import { detectBuildSettings, MissingFolderError } from '../../engine/pipeline/detect';
import { GitSourceError, knownHostsPath } from '../../engine/pipeline/source';
import { badRequest } from '../../lib/errors';
import { getSettings } from '../settings/service';
import { getConnectionRow, getProviderRow, providerToken, type RepositoryRow, tokenUserFor } from './service';

export async function livePreset(
  ctx: AppContext,
  repository: RepositoryRow,
  branch: string,
  rootDirectory = '.',
): Promise<LivePreset> {
  const connection = await getConnectionRow(ctx, repository.connectionId);
  const provider = await getProviderRow(ctx, connection.providerId);
  const settings = await getSettings(ctx);
  try {
    const detected = await detectBuildSettings({
      url: repository.cloneUrl,
      token: await providerToken(ctx, provider),
      tokenUser: tokenUserFor(provider.providerType === 'github' ? 'github' : 'gitlab'),
      branch,
      rootDirectory,
      allowPrivateNetwork: provider.savedByAdmin || settings.allow_private_network_targets,
      knownHostsFile: knownHostsPath(ctx.config.dataDir),
    });
    return { repository_id: repository.id, ...detected };
  } catch (error) {
    if (error instanceof MissingFolderError) {
      throw badRequest(error.message, [{ path: 'querystring.root_directory', message: error.message }]);
    }
    if (error instanceof GitSourceError)
      throw badRequest(error.message, [
        { path: error.field === 'branch' ? 'querystring.branch' : 'params.repository_id', message: error.message },
      ]);
    throw error;
  }
}
