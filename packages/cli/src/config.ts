import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where `launchbay login` keeps the platform's address and the API key (readable by the user only). */
export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LAUNCHBAY_CONFIG) return path.resolve(env.LAUNCHBAY_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'launchbay', 'config.json');
}

export type Login = { url: string; key: string };

export function readLogin(env: NodeJS.ProcessEnv = process.env): Login | null {
  // The environment wins, for scripts and CI: LAUNCHBAY_URL and LAUNCHBAY_API_KEY.
  let stored: Partial<Login> = {};
  try {
    stored = JSON.parse(fs.readFileSync(configFile(env), 'utf8')) as Partial<Login>;
  } catch {
    // not logged in yet
  }
  const url = env.LAUNCHBAY_URL || stored.url;
  const key = env.LAUNCHBAY_API_KEY || stored.key;
  return url && key ? { url, key } : null;
}

export function writeLogin(login: Login, env: NodeJS.ProcessEnv = process.env): string {
  const file = configFile(env);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
  return file;
}
