import { type ExternalPostgres, startExternalPostgres } from '@launchbay/testkit';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    externalPostgresUrl: string | null;
  }
}

let server: ExternalPostgres | undefined;

/** With LAUNCHBAY_TEST_EXTERNAL_PG=1 the whole suite runs against a separate PostgreSQL server. */
export async function setup(project: TestProject) {
  if (process.env.LAUNCHBAY_TEST_EXTERNAL_PG === '1') {
    server = await startExternalPostgres();
    project.provide('externalPostgresUrl', server.url('postgres'));
  } else {
    project.provide('externalPostgresUrl', null);
  }
}

export async function teardown() {
  server?.stop();
}
