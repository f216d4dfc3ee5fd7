// Bundles the edge into dist/main.js, one file the control plane runs with its own Node
// (`process.execPath dist/main.js`). npm packages stay external but for the parts of undici the edge
// uses; the workspace protocol is bundled in.
import fs from 'node:fs';
import { build } from 'esbuild';
import { oneByteSource } from '../../scripts/one-byte-source.mjs';

process.chdir(new URL('.', import.meta.url).pathname);
const pkg = JSON.parse(fs.readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@launchbay/') && name !== 'undici');

/**
 * undici loads node:http2 for HTTP/2 upstreams, which the edge never opens (apps speak HTTP/1.1 to
 * it): 5 MB of memory for good. In the bundle that import fails, and undici takes its own path for
 * runtimes without HTTP/2.
 */
const withoutHttp2 = {
  name: 'without-http2',
  setup(b) {
    b.onResolve({ filter: /^(node:)?http2$/ }, () => ({ path: 'http2', namespace: 'without-http2' }));
    b.onLoad({ filter: /.*/, namespace: 'without-http2' }, () => ({
      contents: "throw new Error('node:http2 is left out of the edge (build.mjs)');",
      loader: 'js',
    }));
  },
};

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
  plugins: [withoutHttp2, oneByteSource],
  metafile: true,
  // The bundled undici is CommonJS: its require() of Node's own modules needs a real require.
  banner: {
    js: "import { createRequire as __edgeCreateRequire } from 'node:module'; const require = __edgeCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
console.log('edge built: dist/main.js');
