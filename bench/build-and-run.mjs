// `npm run bench`: bundles bench/run.ts (TypeScript, sharing the test helpers) and runs it.
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
  logLevel: 'warning',
});
execFileSync(process.execPath, ['bench/.out/run.mjs', ...process.argv.slice(2)], { stdio: 'inherit' });
