import { defineConfig } from 'vitest/config';

/**
 * Two runs: every test with the embedded edge, and the tests of what both drivers must do alike
 * (routing, static sites, switching deployments, HTTPS, and nginx's own access log) with the nginx
 * driver: nginx from Debian's package, configured by the edge (EDGE_TEST_DRIVER=nginx).
 */
const BOTH_DRIVERS = ['test/routing.test.ts', 'test/static.test.ts', 'test/switch.test.ts', 'test/tls.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'embedded', include: ['test/**/*.test.ts'], exclude: ['test/nginx-*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'nginx',
          include: [...BOTH_DRIVERS, 'test/nginx-*.test.ts'],
          env: { EDGE_TEST_DRIVER: 'nginx' },
        },
      },
    ],
  },
});
