import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, type GitServer, startGitServer, type TestRepo, waitUntil } from '@launchbay/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../lib/outbound';
import {
  checkRemote,
  fetchCommit,
  GitSourceError,
  generateDeployKey,
  isValidBranchName,
  parseGitUrl,
  prepareGitAccess,
  redactSecrets,
} from './source';

const TOKEN = 'ghp_TestToken0123456789abcdefSECRET';
const WRONG_TOKEN = 'ghp_WrongToken0123456789abcdefNOPE';
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');

const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const tmpDirs: string[] = [];
const emptyDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-source-test-'));
  tmpDirs.push(dir);
  return path.join(dir, 'checkout');
};

/** A TCP server that accepts connections and never answers: a host that hangs. */
async function startSilentServer() {
  const sockets = new Set<net.Socket>();
  const received: string[] = [];
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => received.push(chunk.toString('latin1')));
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Every process's command line on this machine (what `ps` shows to any user). */
function allCommandLines(): string[] {
  const lines: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      lines.push(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // gone already
    }
  }
  return lines;
}

afterAll(() => {
  for (const dir of tmpDirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe('parseGitUrl', () => {
  it('accepts https, ssh:// and scp-like URLs', () => {
    expect(parseGitUrl('https://github.com/acme/site.git')).toMatchObject({
      protocol: 'https',
      host: 'github.com',
      port: null,
      owner: 'acme',
      name: 'site',
      path: 'acme/site.git',
      remote: 'https://github.com/acme/site.git',
    });
    expect(parseGitUrl('  https://GitLab.com/group/sub/repo  ')).toMatchObject({
      host: 'gitlab.com',
      owner: 'group/sub',
      name: 'repo',
      remote: 'https://gitlab.com/group/sub/repo',
    });
    expect(parseGitUrl('https://git.example.com:8443/team/app.git/')).toMatchObject({ port: 8443, path: 'team/app.git' });
    expect(parseGitUrl('git@github.com:acme/site.git')).toMatchObject({
      protocol: 'ssh',
      user: 'git',
      host: 'github.com',
      port: null,
      owner: 'acme',
      name: 'site',
      remote: 'git@github.com:acme/site.git',
    });
    expect(parseGitUrl('ssh://git@gitea.example.com:2222/acme/site.git')).toMatchObject({
      protocol: 'ssh',
      user: 'git',
      port: 2222,
      remote: 'ssh://git@gitea.example.com:2222/acme/site.git',
    });
    expect(parseGitUrl('ssh://git@[::1]:2222/acme/site.git')).toMatchObject({
      host: '::1',
      remote: 'ssh://git@[::1]:2222/acme/site.git',
    });
    expect(parseGitUrl('git+ssh://git@example.com/acme/site.git').protocol).toBe('ssh');
    expect(parseGitUrl('https://cgit.example.com/project.git')).toMatchObject({ owner: null, name: 'project' });
  });

  it('accepts http:// only for hosts on a private network', () => {
    expect(parseGitUrl('http://127.0.0.1:3000/acme/site.git').protocol).toBe('http');
    expect(parseGitUrl('http://192.168.1.20/acme/site.git').host).toBe('192.168.1.20');
    expect(parseGitUrl('http://gitea.internal/acme/site.git').host).toBe('gitea.internal');
    expect(parseGitUrl('http://gitea:3000/acme/site.git').host).toBe('gitea');
    expect(() => parseGitUrl('http://github.com/acme/site.git')).toThrow(/Use https:\/\//);
    expect(() => parseGitUrl('http://8.8.8.8/acme/site.git')).toThrow(/Use https:\/\//);
  });

  it.each([
    ['', /Enter the repository URL/],
    ['file:///srv/repo.git', /file:\/\/ URLs are not supported/],
    ['/srv/repo.git', /Local paths are not supported/],
    ['./repo', /Local paths are not supported/],
    ['ext::sh -c touch% /tmp/pwned', /spaces|Remote helpers/],
    ['ext::ssh', /Remote helpers/],
    ['fd::17', /Remote helpers/],
    ['git://github.com/acme/site.git', /git:\/\/ URLs are not supported/],
    ['ftp://example.com/acme/site.git', /ftp:\/\/ URLs are not supported/],
    ['--upload-pack=touch /tmp/pwned', /cannot start with "-"/],
    ['-oProxyCommand=evil', /cannot start with "-"/],
    ['https://user:ghp_secret@github.com/acme/site.git', /enter the token in the access token field/],
    ['https://ghp_secret@github.com/acme/site.git', /enter the token in the access token field/],
    ['ssh://git:password@example.com/acme/site.git', /Do not put credentials in the URL/],
    ['https://github.com/acme/site/tree/main', /github\.com\/OWNER\/REPO/],
    ['https://github.com/acme', /github\.com\/OWNER\/REPO/],
    ['https://github.com/', /names no repository/],
    ['https://github.com/acme/site.git?ref=main', /no "\?" query/],
    ['https://github.com/acme/site#readme', /no "\?" query/],
    ['https://git.example.com/acme/.git', /missing before "\.git"/],
    ['https://git.example.com/acme/si te.git', /spaces/],
    ['git@github.com', /SSH URL looks like git@host:owner\/repo\.git/],
    ['github.com:acme/site.git', /SSH URL looks like/],
    ['git@-oProxyCommand=x:acme/site.git', /not a host name/],
    ['-@github.com:acme/site.git', /cannot start with "-"/],
    ['git@github.com:acme/../site.git', /a part git hosts do not use/],
    ['https://bad_host!/acme/site.git', /not a valid URL|not a host name/],
    ['github.com/acme/site', /not a repository URL/],
  ])('refuses %j', (url, message) => {
    expect(() => parseGitUrl(url)).toThrow(message);
  });

  it('checks branch names like git check-ref-format', () => {
    for (const ok of ['main', 'feature/login', 'release-1.2', 'v1.x_y']) expect(isValidBranchName(ok)).toBe(true);
    for (const bad of [
      '',
      '-x',
      'a..b',
      'a b',
      'a:b',
      'a~1',
      'a^',
      'x.lock',
      '.hidden',
      'a/',
      '/a',
      'a//b',
      'a@{1}',
      'HEAD',
      'x.',
    ])
      expect(isValidBranchName(bad)).toBe(false);
  });
});

describe('deploy keys', () => {
  it('makes an ssh-ed25519 public key line in the OpenSSH wire format', () => {
    const key = generateDeployKey();
    expect(key.publicKey).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI[A-Za-z0-9+/]{43} launchbay$/);
    const blob = Buffer.from(key.publicKey.split(' ')[1]!, 'base64');
    expect(blob.length).toBe(4 + 11 + 4 + 32);
    expect(blob.readUInt32BE(0)).toBe(11);
    expect(blob.subarray(4, 15).toString()).toBe('ssh-ed25519');
    expect(blob.readUInt32BE(15)).toBe(32);
    expect(key.privateKeyPem).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
    expect(key.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(generateDeployKey().publicKey).not.toBe(key.publicKey);
  });

  it.skipIf(!has('ssh-keygen'))('is read by ssh-keygen: same fingerprint, and the private key gives back the public one', () => {
    const key = generateDeployKey('launchbay');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-key-test-'));
    tmpDirs.push(dir);
    fs.writeFileSync(path.join(dir, 'key.pub'), `${key.publicKey}\n`);
    fs.writeFileSync(path.join(dir, 'key'), key.privateKeyPem, { mode: 0o600 });
    const listed = execFileSync('ssh-keygen', ['-l', '-f', path.join(dir, 'key.pub')], { encoding: 'utf8' });
    expect(listed).toContain(key.fingerprint);
    expect(listed).toMatch(/^256 SHA256:\S+ launchbay \(ED25519\)/);
    const derived = execFileSync('ssh-keygen', ['-y', '-f', path.join(dir, 'key')], { encoding: 'utf8' });
    expect(derived.trim().split(' ').slice(0, 2).join(' ')).toBe(key.publicKey.split(' ').slice(0, 2).join(' '));
  });
});

describe('checkRemote', () => {
  let server: GitServer;
  let repo: TestRepo;
  const allow = { allowPrivateNetwork: true, timeoutMs: 15_000 };

  beforeAll(async () => {
    server = await startGitServer({ token: TOKEN });
    repo = await server.createRepo('acme/site', { 'index.html': '<h1>v1</h1>' });
    await repo.addBranch('develop');
    await repo.addBranch('feature/login');
  });
  afterAll(() => server?.close());

  it('answers the head sha of an existing branch, and lists the branches', async () => {
    const result = await checkRemote({ url: repo.url, token: TOKEN, branch: 'main', ...allow });
    expect(result).toEqual({ ok: true, headSha: await repo.head('main'), branches: ['main', 'develop', 'feature/login'] });
    const newer = await repo.commit({ 'index.html': '<h1>v2</h1>' }, 'v2');
    expect(await checkRemote({ url: repo.url, token: TOKEN, branch: 'main', ...allow })).toMatchObject({
      ok: true,
      headSha: newer,
    });
  });

  it('counts how often the repository was listed', async () => {
    const before = repo.fetchCount();
    await checkRemote({ url: repo.url, token: TOKEN, branch: 'main', ...allow });
    expect(repo.fetchCount()).toBe(before + 1);
    const last = repo.requests('git-upload-pack').at(-1)!;
    expect(last.authorization).toBe(`Basic ${BASIC}`);
  });

  it('names a missing branch and lists the existing ones', async () => {
    const result = await checkRemote({ url: repo.url, token: TOKEN, branch: 'production', ...allow });
    expect(result).toMatchObject({ ok: false, reason: 'branch_not_found', field: 'branch' });
    if (result.ok) throw new Error('unexpected');
    expect(result.message).toBe(
      `The branch "production" does not exist in ${repo.url}. Its branches: "main", "develop", "feature/login"`,
    );
    expect(result.branches).toEqual(['main', 'develop', 'feature/login']);
  });

  it('says when the repository is empty', async () => {
    const empty = await server.createRepo('acme/empty', {}, { empty: true });
    expect(await checkRemote({ url: empty.url, token: TOKEN, branch: 'main', ...allow })).toMatchObject({
      ok: false,
      reason: 'empty',
      message: expect.stringContaining('is empty: push a commit to "main" first'),
    });
  });

  it('reports a wrong token as an authentication failure, without the token', async () => {
    const result = await checkRemote({ url: repo.url, token: WRONG_TOKEN, branch: 'main', ...allow });
    expect(result).toMatchObject({ ok: false, reason: 'auth_failed', field: 'token' });
    if (result.ok) throw new Error('unexpected');
    expect(result.message).toMatch(/^Authentication failed: 127\.0\.0\.1 refused the access token/);
    expect(result.message).not.toContain(WRONG_TOKEN);
  });

  it('reports a missing token as an authentication failure', async () => {
    const result = await checkRemote({ url: repo.url, branch: 'main', ...allow });
    expect(result).toMatchObject({ ok: false, reason: 'auth_failed', field: 'token' });
    if (result.ok) throw new Error('unexpected');
    expect(result.message).toContain('needs an access token');
  });

  it('reports a repository that does not exist', async () => {
    const url = server.urlFor('acme/nope');
    const result = await checkRemote({ url, token: TOKEN, branch: 'main', ...allow });
    expect(result).toMatchObject({ ok: false, reason: 'not_found', field: 'url' });
    if (result.ok) throw new Error('unexpected');
    expect(result.message).toBe(`The repository ${url} does not exist, or the credentials given cannot see it`);
  });

  it('reports a closed port as unreachable, quickly', async () => {
    const port = await freePort();
    const started = Date.now();
    const result = await checkRemote({ url: `http://127.0.0.1:${port}/acme/site.git`, token: TOKEN, branch: 'main', ...allow });
    expect(result).toMatchObject({ ok: false, reason: 'unreachable', field: 'url' });
    if (result.ok) throw new Error('unexpected');
    expect(result.message).toBe(`The repository cannot be reached: no connection to 127.0.0.1 port ${port}`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up on a host that never answers at the time bound, and keeps the token off every command line', async () => {
    const silent = await startSilentServer();
    try {
      const url = `http://127.0.0.1:${silent.port}/acme/site.git`;
      const started = Date.now();
      const pending = checkRemote({ url, token: TOKEN, branch: 'main', allowPrivateNetwork: true, timeoutMs: 2_500 });
      // While git waits for the answer, its processes (git ls-remote, git-remote-http) are alive.
      await waitUntil(() => silent.received.join('').includes('\r\n\r\n'), 'the request of git', 5_000);
      const commandLines = allCommandLines();
      expect(commandLines.some((line) => line.includes(url))).toBe(true); // git's processes are among them
      for (const line of commandLines) {
        expect(line).not.toContain(TOKEN);
        expect(line).not.toContain(BASIC);
      }
      // The token went as a header, to this origin.
      expect(silent.received.join('')).toContain(`Authorization: Basic ${BASIC}`);
      const result = await pending;
      const elapsed = Date.now() - started;
      expect(result).toMatchObject({
        ok: false,
        reason: 'unreachable',
        message: 'The repository cannot be reached: 127.0.0.1 did not answer within 2.5 s',
      });
      expect(elapsed).toBeGreaterThanOrEqual(2_400);
      expect(elapsed).toBeLessThan(6_000);
    } finally {
      await silent.close();
    }
  });

  it('refuses a private host when private networks are not allowed, before any request', async () => {
    const before = server.requests.length;
    const result = await checkRemote({ url: repo.url, token: TOKEN, branch: 'main', allowPrivateNetwork: false });
    expect(result).toMatchObject({ ok: false, reason: 'refused', field: 'url' });
    if (result.ok) throw new Error('unexpected');
    expect(result.message).toMatch(/^Refused: 127\.0\.0\.1 is a loopback address/);
    expect(server.requests.length).toBe(before);
  });

  it('connects to the address the guard checked (no second DNS lookup by git)', async () => {
    // git.internal exists only in this resolver: git reaches it through http.curloptResolve alone.
    const resolver: Resolver = async (host) => (host === 'git.internal' ? [{ address: '127.0.0.1', family: 4 }] : []);
    const url = `http://git.internal:${server.port}/acme/site.git`;
    expect(await checkRemote({ url, token: TOKEN, branch: 'main', allowPrivateNetwork: true, resolver })).toMatchObject({
      ok: true,
      headSha: await repo.head(),
    });
    const toPublic: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
    const refused = await checkRemote({ url, token: TOKEN, branch: 'main', allowPrivateNetwork: true, resolver: toPublic });
    expect(refused).toMatchObject({
      ok: false,
      reason: 'refused',
      message: expect.stringMatching(/^Use https:\/\/: git\.internal resolves/),
    });
    const metadata: Resolver = async () => [{ address: '169.254.169.254', family: 4 }];
    expect(await checkRemote({ url, token: TOKEN, branch: 'main', allowPrivateNetwork: true, resolver: metadata })).toMatchObject(
      { ok: false, reason: 'refused', message: expect.stringContaining('link-local') },
    );
  });

  it('does not follow redirects (they could lead past the guard)', async () => {
    const redirector = http.createServer((req, res) => {
      res.writeHead(301, { location: `${server.baseUrl}${req.url}` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (redirector.address() as net.AddressInfo).port;
      const before = repo.fetchCount();
      const result = await checkRemote({ url: `http://127.0.0.1:${port}/acme/site.git`, token: TOKEN, branch: 'main', ...allow });
      expect(result).toMatchObject({ ok: false, message: expect.stringContaining('answered with a redirect') });
      expect(repo.fetchCount()).toBe(before);
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('reports a host name that does not resolve as unreachable', async () => {
    const result = await checkRemote({
      url: 'https://repo.launchbay.invalid/acme/site.git',
      branch: 'main',
      allowPrivateNetwork: true,
    });
    expect(result).toMatchObject({ ok: false, reason: 'unreachable', message: expect.stringContaining('was not found (DNS)') });
  });

  it('answers bad input as field errors', async () => {
    expect(await checkRemote({ url: 'file:///etc', branch: 'main', allowPrivateNetwork: true })).toMatchObject({
      ok: false,
      reason: 'invalid',
      field: 'url',
    });
    expect(await checkRemote({ url: repo.url, branch: '--upload-pack=x', allowPrivateNetwork: true })).toMatchObject({
      reason: 'invalid',
      field: 'branch',
    });
    expect(await checkRemote({ url: repo.url, token: 'a b\nc', branch: 'main', allowPrivateNetwork: true })).toMatchObject({
      reason: 'invalid',
      field: 'token',
    });
  });

  it('builds argv without the token: it travels in GIT_CONFIG_* for the origin only', async () => {
    const access = await prepareGitAccess({ url: repo.url, token: TOKEN, allowPrivateNetwork: true });
    if ('ok' in access) throw new Error(access.message);
    try {
      const argv = [...access.configArgs, access.url.remote].join(' ');
      expect(argv).not.toContain(TOKEN);
      expect(argv).not.toContain(BASIC);
      expect(access.configArgs).toEqual(expect.arrayContaining(['credential.helper=', 'http.followRedirects=false']));
      expect(access.env).toMatchObject({
        GIT_TERMINAL_PROMPT: '0',
        GIT_ASKPASS: '',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_ALLOW_PROTOCOL: 'http',
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: `http.http://127.0.0.1:${server.port}/.extraHeader`,
        GIT_CONFIG_VALUE_0: `Authorization: Basic ${BASIC}`,
      });
      const inherited = Object.keys(access.env).filter((name) => !/^(GIT_|SSH_|GCM_|PATH$|HOME$|LC_ALL$|LANG$)/.test(name));
      expect(inherited).toEqual([]);
      expect(redactSecrets(`x ${TOKEN} y ${BASIC}`, access.secrets)).toBe('x *** y ***');
    } finally {
      access.cleanup();
    }
  });
});

describe('fetchCommit', () => {
  let server: GitServer;
  let repo: TestRepo;
  let first: string;
  let second: string;
  const allow = { allowPrivateNetwork: true };

  beforeAll(async () => {
    server = await startGitServer({ token: TOKEN });
    repo = await server.createRepo('acme/app', { 'package.json': '{"name":"app"}', 'src/index.js': 'v1' }, { message: 'First' });
    first = await repo.head();
    second = await repo.commit({ 'src/index.js': 'v2', 'README.md': '# app' }, 'Second\n\nWith a body.');
  });
  afterAll(() => server?.close());

  it("gets the branch's head commit into an empty folder", async () => {
    const dir = emptyDir();
    const lines: string[] = [];
    const fetched = await fetchCommit({ url: repo.url, token: TOKEN, branch: 'main', dir, log: (l) => lines.push(l), ...allow });
    expect(fetched).toMatchObject({
      sha: second,
      message: 'Second\n\nWith a body.',
      author: { name: 'Launchbay Test', email: 'test@launchbay.invalid' },
    });
    expect(fetched.committedAt.getTime()).toBeGreaterThan(Date.now() - 120_000);
    expect(fs.readFileSync(path.join(dir, 'src/index.js'), 'utf8')).toBe('v2');
    expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8')).toBe('# app');
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim()).toBe(second);
    expect(lines[0]).toBe(`Fetching the head of main from ${repo.url}`);
    expect(lines.at(-1)).toMatch(new RegExp(`^Checked out ${second.slice(0, 12)}: Second`));
    const all = lines.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(BASIC);
    // Nothing secret was written into the checkout's git config.
    expect(fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8')).not.toContain(BASIC);
  });

  it('gets an older commit by sha, shallow (protocol v2 serves any commit)', async () => {
    const dir = emptyDir();
    const fetched = await fetchCommit({ url: repo.url, token: TOKEN, branch: 'main', commit: first, dir, ...allow });
    expect(fetched).toMatchObject({ sha: first, message: 'First' });
    expect(fs.readFileSync(path.join(dir, 'src/index.js'), 'utf8')).toBe('v1');
    expect(fs.existsSync(path.join(dir, 'README.md'))).toBe(false);
    expect(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('1');
  });

  it('falls back to the branch history on a server that does not hand out commits by sha (protocol v0)', async () => {
    const v0 = await startGitServer({ token: TOKEN, protocolV2: false });
    try {
      const old = await v0.createRepo('acme/old', { 'a.txt': '1' }, { message: 'one' });
      const oldFirst = await old.head();
      await old.commit({ 'a.txt': '2' }, 'two');
      const dir = emptyDir();
      const lines: string[] = [];
      const fetched = await fetchCommit({
        url: old.url,
        token: TOKEN,
        branch: 'main',
        commit: oldFirst,
        dir,
        log: (l) => lines.push(l),
        ...allow,
      });
      expect(fetched).toMatchObject({ sha: oldFirst, message: 'one' });
      expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('1');
      expect(lines.join('\n')).toContain('does not hand out commit');
      // With uploadpack.allowReachableSHA1InWant a v0 server serves it directly.
      const reachable = await startGitServer({ protocolV2: false, allowReachableSha1InWant: true });
      try {
        const r = await reachable.createRepo('acme/r', { 'a.txt': '1' });
        const sha = await r.head();
        await r.commit({ 'a.txt': '2' });
        const lines2: string[] = [];
        await fetchCommit({ url: r.url, branch: 'main', commit: sha, dir: emptyDir(), log: (l) => lines2.push(l), ...allow });
        expect(lines2.join('\n')).not.toContain('does not hand out commit');
      } finally {
        await reachable.close();
      }
    } finally {
      await v0.close();
    }
  });

  it('reports a commit the server does not have', async () => {
    const missing = 'f'.repeat(40);
    const error = await fetchCommit({
      url: repo.url,
      token: TOKEN,
      branch: 'main',
      commit: missing,
      dir: emptyDir(),
      ...allow,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitSourceError);
    expect(error).toMatchObject({ reason: 'commit_not_found', field: 'commit' });
    expect((error as Error).message).toContain(missing);
  });

  it('reports a missing branch', async () => {
    const error = await fetchCommit({ url: repo.url, token: TOKEN, branch: 'nope', dir: emptyDir(), ...allow }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ reason: 'branch_not_found', message: `The branch "nope" does not exist in ${repo.url}` });
  });

  it('reports a wrong token without showing it in the error or the log', async () => {
    const lines: string[] = [];
    const error = await fetchCommit({
      url: repo.url,
      token: WRONG_TOKEN,
      branch: 'main',
      dir: emptyDir(),
      log: (l) => lines.push(l),
      ...allow,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'auth_failed', field: 'token' });
    const shown = `${(error as Error).message}\n${lines.join('\n')}`;
    expect(shown).not.toContain(WRONG_TOKEN);
    expect(shown).not.toContain(Buffer.from(`x-access-token:${WRONG_TOKEN}`).toString('base64'));
  });

  it('needs an empty folder and a full sha', async () => {
    const dir = emptyDir();
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'x'), '');
    await expect(fetchCommit({ url: repo.url, token: TOKEN, branch: 'main', dir, ...allow })).rejects.toThrow(
      /needs an empty folder/,
    );
    await expect(
      fetchCommit({ url: repo.url, token: TOKEN, branch: 'main', commit: 'abc123', dir: emptyDir(), ...allow }),
    ).rejects.toMatchObject({ reason: 'invalid', field: 'commit' });
  });

  it('stops at its time bound, and on cancel', async () => {
    const silent = await startSilentServer();
    try {
      const url = `http://127.0.0.1:${silent.port}/acme/app.git`;
      const started = Date.now();
      await expect(
        fetchCommit({ url, token: TOKEN, branch: 'main', dir: emptyDir(), timeoutMs: 1_500, ...allow }),
      ).rejects.toMatchObject({
        reason: 'timeout',
        message: 'Fetching the repository took longer than 1.5 s',
      });
      expect(Date.now() - started).toBeLessThan(5_000);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      await expect(
        fetchCommit({ url, token: TOKEN, branch: 'main', dir: emptyDir(), signal: controller.signal, ...allow }),
      ).rejects.toMatchObject({ reason: 'aborted' });
    } finally {
      await silent.close();
    }
  });
});

describe('SSH', () => {
  it('uses the deploy key through GIT_SSH_COMMAND, from a 0600 file removed afterwards', async () => {
    const key = generateDeployKey();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-data-'));
    tmpDirs.push(dataDir);
    const knownHostsFile = path.join(dataDir, 'ssh', 'known_hosts');
    const access = await prepareGitAccess({
      url: 'ssh://git@127.0.0.1:2222/acme/site.git',
      sshKey: key.privateKeyPem,
      knownHostsFile,
      allowPrivateNetwork: true,
    });
    if ('ok' in access) throw new Error(access.message);
    const command = access.env.GIT_SSH_COMMAND!;
    const keyFile = /'-i' '([^']+)'/.exec(command)?.[1];
    expect(keyFile).toBeTruthy();
    expect(fs.statSync(keyFile!).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(keyFile!, 'utf8')).toBe(key.privateKeyPem);
    for (const option of [
      "'BatchMode=yes'",
      "'StrictHostKeyChecking=accept-new'",
      `'UserKnownHostsFile=${knownHostsFile}'`,
      "'IdentitiesOnly=yes'",
      "'-F' '/dev/null'",
    ])
      expect(command).toContain(option);
    expect(fs.existsSync(path.dirname(knownHostsFile))).toBe(true);
    expect(access.env.GIT_ALLOW_PROTOCOL).toBe('ssh');
    access.cleanup();
    expect(fs.existsSync(keyFile!)).toBe(false);
  });

  it('pins a host name to the checked address, keeping host keys filed under the name', async () => {
    const resolver: Resolver = async () => [{ address: '10.1.2.3', family: 4 }];
    const access = await prepareGitAccess({ url: 'git@git.corp.example:acme/site.git', allowPrivateNetwork: true, resolver });
    if ('ok' in access) throw new Error(access.message);
    expect(access.env.GIT_SSH_COMMAND).toContain("'HostName=10.1.2.3' '-o' 'HostKeyAlias=git.corp.example'");
    expect(access.env.GIT_SSH_COMMAND).toContain("'PubkeyAuthentication=no'");
    access.cleanup();
  });

  it('refuses a key that is not one, and turns a PKCS#8 Ed25519 key into OpenSSH format', async () => {
    const bad = await prepareGitAccess({ url: 'git@127.0.0.1:a/b.git', sshKey: 'not a key', allowPrivateNetwork: true });
    expect(bad).toMatchObject({ ok: false, reason: 'invalid', field: 'sshKey' });
    const { generateKeyPairSync } = await import('node:crypto');
    const pkcs8 = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const access = await prepareGitAccess({ url: 'git@127.0.0.1:a/b.git', sshKey: pkcs8, allowPrivateNetwork: true });
    if ('ok' in access) throw new Error(access.message);
    const keyFile = /'-i' '([^']+)'/.exec(access.env.GIT_SSH_COMMAND!)![1]!;
    expect(fs.readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    if (has('ssh-keygen')) expect(spawnSync('ssh-keygen', ['-y', '-f', keyFile]).status).toBe(0);
    access.cleanup();
  });

  it.skipIf(!has('ssh'))('reports a closed SSH port as unreachable (real ssh client)', async () => {
    const port = await freePort();
    const result = await checkRemote({
      url: `ssh://git@127.0.0.1:${port}/acme/site.git`,
      sshKey: generateDeployKey().privateKeyPem,
      branch: 'main',
      allowPrivateNetwork: true,
      timeoutMs: 10_000,
    });
    expect(result).toMatchObject({
      ok: false,
      reason: 'unreachable',
      message: `The repository cannot be reached: no connection to 127.0.0.1 port ${port}`,
    });
  });

  it('refuses an SSH host on a private network when that is not allowed', async () => {
    const result = await checkRemote({ url: 'git@10.0.0.5:acme/site.git', branch: 'main', allowPrivateNetwork: false });
    expect(result).toMatchObject({ ok: false, reason: 'refused', message: expect.stringContaining('a private network address') });
  });
});
