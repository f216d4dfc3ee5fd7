import { execFile } from 'node:child_process';

/**
 * nginx's version line (`nginx/1.22.1`), or null when the program is not there: checked before the
 * nginx edge driver is chosen, so the setting never names a driver that cannot start.
 */
export function nginxVersion(binary: string): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(binary, ['-v'], { timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) return resolve(null);
      const text = `${stdout}${stderr}`;
      resolve(text.match(/nginx\/[\d.]+/)?.[0] ?? text.trim());
    });
  });
}
