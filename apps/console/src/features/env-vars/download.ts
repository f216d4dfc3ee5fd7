import type { Environment } from '@launchbay/contract';
import { formatDotenv } from '@launchbay/contract';
import { type EnvVar, readEnvVarValue } from './api';

/** Reads each variable of one environment in clear and saves them as a .env file. */
export async function downloadDotenv(options: {
  projectId: number;
  projectSlug: string;
  environment: Environment;
  envVars: EnvVar[];
}): Promise<number> {
  const { projectId, projectSlug, environment, envVars } = options;
  const mine = envVars.filter((item) => item.environment_ids.includes(environment.id)).sort((a, b) => a.key.localeCompare(b.key));
  const entries: { key: string; value: string }[] = [];
  for (const item of mine) {
    const { value } = await readEnvVarValue(projectId, item.key, environment.id);
    entries.push({ key: item.key, value });
  }
  const text = formatDotenv(entries, `${projectSlug} (${environment.name}), downloaded ${new Date().toISOString()}`);
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `${projectSlug}.${environment.slug}.env`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return entries.length;
}
