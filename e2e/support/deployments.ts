import type { Deployment } from '@launchbay/contract';
import { type APIRequestContext, expect } from '@playwright/test';

/** Polls a deployment through the API until it settles (ready, failed, crashed or cancelled); answers it. */
export async function waitForDeployment(api: APIRequestContext, projectId: number, deploymentId: number): Promise<Deployment> {
  let last: Deployment | undefined;
  await expect
    .poll(
      async () => {
        const response = await api.get(`/api/projects/${projectId}/deployments/${deploymentId}`);
        last = (await response.json()) as Deployment;
        return last.status;
      },
      { timeout: 90_000, intervals: [500] },
    )
    .toMatch(/^(ready|failed|crashed|cancelled)$/);
  if (!last) throw new Error(`deployment ${deploymentId} was never read`);
  return last;
}
