/**
 * Reads the files of an app's root directory, a checkout of a user's repository: only regular files
 * that really lie inside it (a symlink to /etc/passwd or to the platform's data is treated as
 * absent), at most 1 MiB each, each read once.
 */
import { lstat, open, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const MAX_BYTES = 1024 * 1024;

export class AppFiles {
  private readonly root: Promise<string>;
  private readonly texts = new Map<string, Promise<string | null>>();

  constructor(readonly dir: string) {
    this.root = realpath(dir);
  }

  /** The real path of `rel` when it exists inside the root directory, else null. */
  private async resolve(rel: string): Promise<string | null> {
    const root = await this.root;
    if (path.isAbsolute(rel)) return null;
    try {
      const real = await realpath(path.join(root, rel));
      return real === root || real.startsWith(root + path.sep) ? real : null;
    } catch {
      return null;
    }
  }

  /** Whether there is an entry named `rel` at all, even a link out of the root directory. */
  async present(rel: string): Promise<boolean> {
    if (path.isAbsolute(rel)) return false;
    return lstat(path.join(await this.root, rel)).then(
      () => true,
      () => false,
    );
  }

  /** Whether `rel` is a file or a folder inside the root directory. */
  async exists(rel: string): Promise<boolean> {
    return (await this.resolve(rel)) !== null;
  }

  /** Whether `rel` is a regular file inside the root directory. */
  async isFile(rel: string): Promise<boolean> {
    const real = await this.resolve(rel);
    if (!real) return false;
    return (await stat(real)).isFile();
  }

  /** The first of `names` that is a file, or null. */
  async firstFile(names: readonly string[]): Promise<string | null> {
    for (const name of names) if (await this.isFile(name)) return name;
    return null;
  }

  /** The text of a file (UTF-8), or null when absent, not a regular file, outside the root or over 1 MiB. */
  read(rel: string): Promise<string | null> {
    let text = this.texts.get(rel);
    if (!text) {
      text = this.readOnce(rel, MAX_BYTES);
      this.texts.set(rel, text);
    }
    return text;
  }

  /** The first `bytes` bytes of a file (a lockfile's header), or null. */
  head(rel: string, bytes: number): Promise<string | null> {
    return this.readOnce(rel, bytes, true);
  }

  private async readOnce(rel: string, limit: number, truncate = false): Promise<string | null> {
    const real = await this.resolve(rel);
    // stat first: opening a FIFO would wait for a writer.
    if (!real || !(await stat(real)).isFile()) return null;
    const file = await open(real, 'r').catch(() => null);
    if (!file) return null;
    try {
      const info = await file.stat();
      if (!info.isFile() || (!truncate && info.size > limit)) return null;
      const buffer = Buffer.alloc(Math.min(info.size, limit));
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  }
}
