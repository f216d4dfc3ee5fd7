import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './port';

/**
 * A separate PostgreSQL 15 server for the DATABASE_URL path, started from the system's
 * initdb/pg_ctl into a temp folder on a free port. initdb refuses root, so as root the server
 * runs as the unprivileged `nobody` user.
 */
export type ExternalPostgres = { url: (database: string) => string; stop(): void };

function binary(name: string): string {
  for (const dir of ['/usr/local/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/16/bin', '/usr/bin']) {
    const candidate = path.join(dir, name);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} not found: install PostgreSQL (apt-get install -y postgresql)`);
}

export async function startExternalPostgres(): Promise<ExternalPostgres> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-extpg-'));
  fs.chmodSync(root, 0o755);
  const dataDir = path.join(root, 'data');
  const socketDir = path.join(root, 'sock');
  fs.mkdirSync(dataDir);
  fs.mkdirSync(socketDir);
  const asRoot = process.getuid?.() === 0;
  const runAs = asRoot ? ['runuser', '-u', 'nobody', '--'] : [];
  if (asRoot) execFileSync('chown', ['-R', 'nobody', root]);
  const run = (args: string[]) => {
    const [cmd, ...rest] = [...runAs, ...args];
    const result = spawnSync(cmd as string, rest, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  };
  const user = asRoot ? 'nobody' : os.userInfo().username;
  run([binary('initdb'), '-D', dataDir, '-U', user, '--auth=trust', '--no-locale', '-E', 'UTF8']);
  const port = await freePort();
  run([
    binary('pg_ctl'),
    '-D',
    dataDir,
    '-l',
    path.join(root, 'server.log'),
    '-w',
    '-o',
    `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=off`,
    'start',
  ]);
  return {
    url: (database) => `postgres://${user}@127.0.0.1:${port}/${database}`,
    stop() {
      try {
        run([binary('pg_ctl'), '-D', dataDir, '-m', 'immediate', 'stop']);
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
