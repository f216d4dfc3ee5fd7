/**
 * The platform's own git remote: one bare repository per project in `DATA_DIR/git`, filled by
 * `git push https://{platform}/git/{slug}.git` (modules/git-remote) and read by the pipeline.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export function gitRemoteRoot(dataDir: string): string {
  return path.join(dataDir, 'git');
}

/** Named by the project's id, not its slug: a renamed project keeps its history. */
export function projectRepoDir(dataDir: string, projectId: number): string {
  return path.join(gitRemoteRoot(dataDir), `${projectId}.git`);
}

const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  LC_ALL: 'C',
};

export function git(args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env: GIT_ENV, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) || 1 : 0, stdout, stderr }),
    );
  });
}

/** Whether the project's own remote holds this commit (a push brought it). */
export async function localRemoteHas(dataDir: string, projectId: number, sha: string): Promise<boolean> {
  const dir = projectRepoDir(dataDir, projectId);
  if (!fs.existsSync(dir)) return false;
  return (await git(['cat-file', '-e', `${sha}^{commit}`], dir)).code === 0;
}

/** The commit a branch of the project's own remote points at, or null. */
export async function localRemoteHead(dataDir: string, projectId: number, branch: string): Promise<string | null> {
  const dir = projectRepoDir(dataDir, projectId);
  if (!fs.existsSync(dir)) return null;
  const run = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], dir);
  return run.code === 0 ? run.stdout.trim() : null;
}
