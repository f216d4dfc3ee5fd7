// Bundles the edge into dist/main.js, one file the control plane runs with its own Node
// (`process.execPath dist/main.js`). npm packages stay external; the workspace protocol is bundled in.
import fs from 'node:fs';
import { build } from 'esbuild';
import { oneByteSource } from '../../scripts/one-byte-source.mjs';

process.chdir(new URL('.', import.meta.url).pathname);
const pkg = JSON.parse(fs.readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@launchbay/'));

fs.rmSync('dist', { recursive: true, force: true });
await build({
  absWorkingDir: process.cwd(),
  entryPoints: ['src/main.ts'],
  outfile: 'dist/main.js',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  external,
  plugins: [oneByteSource],
  metafile: true,
  logLevel: 'warning',
});
console.log('edge built: dist/main.js');
