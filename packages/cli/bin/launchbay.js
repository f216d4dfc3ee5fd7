#!/usr/bin/env node
// The installed command: runs the built CLI (npm run build makes it).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/launchbay.js', import.meta.url));
if (!existsSync(built)) {
  process.stderr.write('launchbay: the CLI is not built yet: run `npm run build` in the Launchbay checkout\n');
  process.exit(1);
}
const { main } = await import(built);
process.exitCode = await main(process.argv.slice(2));
