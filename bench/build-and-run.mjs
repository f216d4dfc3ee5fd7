// `npm run bench`: bundles bench/run.ts (TypeScript, sharing the testkit with the tests) and runs it.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';

await build({
  entryPoints: ['bench/run.ts', 'bench/bare-fastify.ts'],
  outdir: 'bench/.out',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  // The workspace packages export their TypeScript source, which Node cannot load: bundle it in.
  alias: {
    '@launchbay/edge-protocol': './packages/edge-protocol/src/index.ts',
    '@launchbay/testkit': './packages/testkit/src/index.ts',
  },
  logLevel: 'warning',
});
execFileSync(process.execPath, ['bench/.out/run.mjs', ...process.argv.slice(2)], { stdio: 'inherit' });
