// `npm run bench`: bundles the benchmarks (TypeScript, sharing the testkit with the tests) and runs them in turn:
// bench/run.ts (start, API throughput, idle memory, login page), bench/deploy.ts (push to live, builds, logs,
// rollback, runtime memory), bench/edge.ts (edge throughput against direct and Caddy), bench/git.ts (webhook to
// deployment started, pull-request preview to live), bench/proxy-logs.ts (the edge with proxy logging on and off,
// GET /proxy-logs filters on a million rows).
// `--only deploy,edge` runs some of them; every other argument (--quick) goes to each.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';

const BENCHES = ['run', 'deploy', 'edge', 'git', 'proxy-logs'];
const onlyArg = process.argv.find((arg) => arg.startsWith('--only'));
const onlyIndex = process.argv.indexOf('--only');
const only = (onlyArg?.includes('=') ? onlyArg.slice('--only='.length) : onlyIndex >= 0 ? process.argv[onlyIndex + 1] : null)
  ?.split(',')
  .map((name) => name.trim());
const unknown = (only ?? []).filter((name) => !BENCHES.includes(name));
if (unknown.length > 0) throw new Error(`--only: no benchmark ${unknown.join(', ')} (there are ${BENCHES.join(', ')})`);
const args = process.argv.slice(2).filter((arg, i, all) => !arg.startsWith('--only') && all[i - 1] !== '--only');

await build({
  entryPoints: [
    'bench/run.ts',
    'bench/bare-fastify.ts',
    'bench/deploy.ts',
    'bench/edge.ts',
    'bench/git.ts',
    'bench/proxy-logs.ts',
  ],
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
for (const name of BENCHES) {
  if (only && !only.includes(name)) continue;
  execFileSync(process.execPath, [`bench/.out/${name}.mjs`, ...args], { stdio: 'inherit' });
}
