import { defineConfig } from 'vitest/config';

/**
 * Every test with the embedded edge; the certificate tests (HTTP-01 through the edge, HTTPS by SNI,
 * renewal) once more with the nginx edge driver (nginx from Debian's package).
 */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'api', include: ['src/**/*.test.ts', 'test/**/*.test.ts'] } },
      {
        extends: true,
        test: { name: 'nginx', include: ['test/api/domains.test.ts'], env: { LAUNCHBAY_TEST_EDGE_DRIVER: 'nginx' } },
      },
    ],
  },
});
