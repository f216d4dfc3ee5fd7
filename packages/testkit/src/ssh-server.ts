import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './port';

/**
 * A real SSH server for git over SSH in tests: OpenSSH's sshd (Debian's openssh-server) on a free
 * loopback port, with its own host key and its own authorized_keys file, so a test decides which
 * public keys may log in (as a deploy key is added to a repository). Git runs `git-upload-pack` on
 * the far side like on any git host; repositories are addressed by their path on disk, e.g. the
 * test git server's bare repositories (`url(gitServer.root + '/acme/site.git')`).
 */
export type SshServer = {
  port: number;
  /** The SSH host key line of this server (as known_hosts would hold it, without the host). */
  hostKey: string;
  /** The ssh:// URL of a bare repository at `repoPath` on this machine, for the current user. */
  url(repoPath: string): string;
  /** Lets this OpenSSH public key line log in. */
  authorize(publicKey: string): void;
  close(): Promise<void>;
};

const SSHD_CANDIDATES = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'];

export const sshdBinary = (): string | undefined => SSHD_CANDIDATES.find((candidate) => fs.existsSync(candidate));

export async function startSshServer(): Promise<SshServer> {
  const sshd = sshdBinary();
  if (!sshd) throw new Error('sshd not found: install OpenSSH (apt-get install -y openssh-server)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-sshd-'));
  const hostKeyFile = path.join(dir, 'host_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKeyFile]);
  const authorizedKeys = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorizedKeys, '', { mode: 0o600 });
  // sshd wants its privilege-separation folder even when it is not used for this user.
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKeyFile}`,
      `AuthorizedKeysFile ${authorizedKeys}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      // The temp folder's modes are the test's, not a home directory's.
      'StrictModes no',
      'UsePAM no',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(sshd, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (listening) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`sshd did not start: ${stderr.trim() || `exit ${child.exitCode}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const user = os.userInfo().username;
  return {
    port,
    hostKey: fs.readFileSync(`${hostKeyFile}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' '),
    url: (repoPath) => `ssh://${user}@127.0.0.1:${port}${repoPath.startsWith('/') ? '' : '/'}${repoPath}`,
    authorize(publicKey) {
      fs.appendFileSync(authorizedKeys, `${publicKey.trim()}\n`);
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
