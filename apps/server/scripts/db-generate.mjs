// `npm run db:generate -w apps/server -- --name <change>`: writes a new SQL migration from the
// drizzle schema. drizzle-kit resolves drizzle-orm from the repository root, where npm does not
// hoist it in this workspace layout, so link it there for the duration of the run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
const serverDir = path.resolve(here, '..');
const rootLink = path.resolve(serverDir, '..', '..', 'node_modules', 'drizzle-orm');
const linked = !fs.existsSync(rootLink);
if (linked) fs.symlinkSync(path.join(serverDir, 'node_modules', 'drizzle-orm'), rootLink);
try {
  const result = spawnSync('npx', ['drizzle-kit', 'generate', ...process.argv.slice(2)], { cwd: serverDir, stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
} finally {
  if (linked) fs.rmSync(rootLink);
}
