/**
 * How the platform reaches a repository: the git CLI (ls-remote to check, init + fetch to get one
 * commit), which works with every host, over HTTPS with a token or over SSH with a deploy key.
 *
 * Rules every git command here follows:
 * - No prompt, ever: GIT_TERMINAL_PROMPT=0, an empty askpass, no credential helper, no system or
 *   global git config, SSH in BatchMode with its own known_hosts file and no agent, stdin closed
 *   and a session of its own (no controlling terminal). A question git would ask becomes an error.
 * - Bounded time: every run has a deadline, after which its whole process group is killed.
 * - The token never reaches a command line (`ps` shows those), a URL, or a file: it travels as an
 *   `http.<origin>.extraHeader` setting in the GIT_CONFIG_COUNT/KEY/VALUE environment variables,
 *   limited to the repository's origin; it is cut out of every message and log line.
 * - The host goes through the outbound guard (lib/outbound): private and loopback hosts only with
 *   `allowPrivateNetwork` (the `allow_private_network_targets` setting), never link-local or
 *   metadata addresses. git connects to the address that was checked (`http.curloptResolve`, or
 *   ssh's HostName), so a name that answers differently the second time gains nothing, and HTTP
 *   redirects are not followed (they could lead anywhere). Plain http:// is for private hosts only.
 *
 * Out of scope: submodules (not fetched; the log says so when a repository has them) and Git LFS
 * content (pointer files stay as they are).
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { classifyAddress, outboundRefusal, type ResolvedAddress, type Resolver, resolveOutbound } from '../../lib/outbound';
import { shellQuote } from '../../lib/shell';

// ---------------------------------------------------------------------------------------------
// Repository URLs

export type GitUrl = {
  protocol: 'https' | 'http' | 'ssh';
  /** Lower case; an IPv6 address without brackets. */
  host: string;
  /** Only when the URL names one. */
  port: number | null;
  /** The SSH user (`git`); null for http(s). */
  user: string | null;
  /** Without a leading slash, as given: `owner/repo.git`, `group/sub/repo`. */
  path: string;
  /** Everything before the repository name (`owner`, `group/sub`); null when the path has one segment. */
  owner: string | null;
  /** The repository name without `.git`. */
  name: string;
  /** The URL git is given (normalized, never with credentials). */
  remote: string;
};

/** A URL the platform will not use; the message is written for a 400 field error on the URL field. */
export class GitUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitUrlError';
  }
}

const EXAMPLES = 'Use an https:// URL (https://github.com/owner/repo.git) or an SSH one (git@github.com:owner/repo.git)';
const SEGMENT = /^(?:[A-Za-z0-9_.~+-]|%[0-9A-Fa-f]{2})+$/;
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const SSH_USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
/** Hosts whose repositories are always `owner/repo`, so that a copied page URL gets a clear message. */
const TWO_SEGMENT_HOSTS = new Set(['github.com', 'bitbucket.org']);
/** Names that only resolve inside a network: plain http:// is accepted for them (and for private addresses). */
const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa', '.intranet', '.corp'];

const bracketed = (host: string) => (net.isIPv6(host) ? `[${host}]` : host);

/** Whether a host can only be on a private network: a private/loopback address or a name no public DNS has. */
function looksPrivate(host: string): boolean {
  if (net.isIP(host)) return classifyAddress(host).reach === 'private_only';
  return host === 'localhost' || !host.includes('.') || PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

function splitPath(raw: string, host: string): { path: string; owner: string | null; name: string } {
  let rest = raw.replace(/^\/+/, '').replace(/\/+$/, '');
  if (rest === '') throw new GitUrlError(`The URL names no repository: add its path, e.g. https://${host}/owner/repo.git`);
  const segments = rest.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || !SEGMENT.test(segment))
      throw new GitUrlError(`The repository path "${rest}" has a part git hosts do not use ("${segment}")`);
  }
  if (TWO_SEGMENT_HOSTS.has(host) && segments.length !== 2)
    throw new GitUrlError(`A repository on ${host} is ${host}/OWNER/REPO: use the clone URL, not the address of a page in it`);
  rest = segments.join('/');
  const name = segments[segments.length - 1]!.replace(/\.git$/, '');
  if (name === '') throw new GitUrlError('The repository name is missing before ".git"');
  return { path: rest, owner: segments.length > 1 ? segments.slice(0, -1).join('/') : null, name };
}

function checkHost(host: string): string {
  const lower = host.toLowerCase();
  if (net.isIP(lower) || HOST_NAME.test(lower)) return lower;
  throw new GitUrlError(`"${host}" is not a host name`);
}

/**
 * Checks a repository URL as a user typed it: https://host/owner/repo(.git) (http:// only for a
 * host on a private network), ssh://user@host[:port]/owner/repo.git or user@host:owner/repo.git.
 * Throws a GitUrlError for anything else: local paths, file://, ext:: and other transports,
 * option-like text, credentials inside the URL.
 */
export function parseGitUrl(input: string): GitUrl {
  const text = input.trim();
  if (text === '') throw new GitUrlError('Enter the repository URL');
  if (text.length > 2048) throw new GitUrlError('The repository URL is too long');
  if (text.startsWith('-')) throw new GitUrlError(`A repository URL cannot start with "-". ${EXAMPLES}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(text)) throw new GitUrlError('The repository URL contains spaces or control characters');

  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    const protocol = scheme === 'git+ssh' || scheme === 'ssh+git' ? 'ssh' : scheme;
    if (protocol !== 'https' && protocol !== 'http' && protocol !== 'ssh')
      throw new GitUrlError(`${scheme}:// URLs are not supported. ${EXAMPLES}`);
    let url: URL;
    try {
      url = new URL(protocol === scheme ? text : `ssh://${text.slice(scheme.length + 3)}`);
    } catch {
      throw new GitUrlError(`This is not a valid URL. ${EXAMPLES}`);
    }
    if (url.password || (protocol !== 'ssh' && url.username))
      throw new GitUrlError('Do not put credentials in the URL: enter the token in the access token field');
    if (url.search || url.hash) throw new GitUrlError('A repository URL has no "?" query or "#" fragment');
    const host = checkHost(url.hostname.replace(/^\[(.*)\]$/, '$1'));
    const port = url.port === '' ? null : Number(url.port);
    const { path: repoPath, owner, name } = splitPath(url.pathname, host);
    const hostPort = `${bracketed(host)}${port === null ? '' : `:${port}`}`;
    if (protocol === 'ssh') {
      const user = url.username ? decodeURIComponent(url.username) : 'git';
      if (!SSH_USER.test(user)) throw new GitUrlError(`"${user}" is not an SSH user name`);
      return { protocol, host, port, user, path: repoPath, owner, name, remote: `ssh://${user}@${hostPort}/${repoPath}` };
    }
    if (protocol === 'http' && !looksPrivate(host))
      throw new GitUrlError(
        'Use https://: plain http:// is accepted only for a host on a private network (such as 192.168.1.20 or git.internal)',
      );
    return { protocol, host, port, user: null, path: repoPath, owner, name, remote: `${protocol}://${hostPort}/${repoPath}` };
  }

  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(text))
    throw new GitUrlError(`Remote helpers such as "ext::" are not supported. ${EXAMPLES}`);
  // The scp-like form: user@host:path.
  const scp = /^([^@/:]+)@(\[[^\]]+\]|[^@/:[\]]+):(?!\/\/)(.+)$/.exec(text);
  if (!scp) {
    if (text.startsWith('/') || text.startsWith('.') || text.startsWith('~') || /^[A-Za-z]:[\\/]/.test(text))
      throw new GitUrlError(`Local paths are not supported. ${EXAMPLES}`);
    if (/^[^@/:]+@[^:]+$/.test(text) || /^[^@/:]+:[^/]/.test(text))
      throw new GitUrlError('An SSH URL looks like git@host:owner/repo.git (with the user, "git@" on most hosts)');
    throw new GitUrlError(`This is not a repository URL. ${EXAMPLES}`);
  }
  const [, user = '', rawHost = '', rawPath = ''] = scp;
  if (user.includes(':')) throw new GitUrlError('Do not put credentials in the URL: add a deploy key instead');
  if (!SSH_USER.test(user)) throw new GitUrlError(`"${user}" is not an SSH user name`);
  const host = checkHost(rawHost.replace(/^\[(.*)\]$/, '$1'));
  const { path: repoPath, owner, name } = splitPath(rawPath, host);
  return {
    protocol: 'ssh',
    host,
    port: null,
    user,
    path: repoPath,
    owner,
    name,
    remote: `${user}@${bracketed(host)}:${repoPath}`,
  };
}

/** The URL as shown to people (the same as `remote`: it never holds credentials). */
export const displayUrl = (url: GitUrl) => url.remote;

/** Branch names as `git check-ref-format --branch` accepts them (the common rules). */
export function isValidBranchName(branch: string): boolean {
  if (branch === '' || branch.length > 255 || branch === '@' || branch === 'HEAD') return false;
  if (branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/') || branch.endsWith('.')) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0020\u007f~^:?*[\\]|\.\.|\/\/|@\{/.test(branch)) return false;
  return branch.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}

// ---------------------------------------------------------------------------------------------
// Deploy keys

export type DeployKey = {
  /** One line for the git host's deploy-key form: `ssh-ed25519 AAAA... launchbay`. */
  publicKey: string;
  /** The private key in OpenSSH's own format (`-----BEGIN OPENSSH PRIVATE KEY-----`), unencrypted: seal it before storing. */
  privateKeyPem: string;
  /** As `ssh-keygen -l` and GitHub show it: `SHA256:...`. */
  fingerprint: string;
};

const sshString = (value: Buffer | string) => {
  const data = typeof value === 'string' ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  return Buffer.concat([length, data]);
};

const ed25519PublicBlob = (publicKey: Buffer) => Buffer.concat([sshString('ssh-ed25519'), sshString(publicKey)]);

function ed25519Parts(key: crypto.KeyObject): { seed: Buffer; publicKey: Buffer } {
  const jwk = key.export({ format: 'jwk' });
  if (!jwk.d || !jwk.x) throw new Error('Not an Ed25519 private key');
  return { seed: Buffer.from(jwk.d, 'base64url'), publicKey: Buffer.from(jwk.x, 'base64url') };
}

/** OpenSSH's private key file (PROTOCOL.key): OpenSSH before 9.6 does not read Ed25519 keys in PKCS#8. */
function openSshPrivateKey(seed: Buffer, publicKey: Buffer, comment: string): string {
  const check = crypto.randomBytes(4);
  const parts = [
    check,
    check,
    sshString('ssh-ed25519'),
    sshString(publicKey),
    sshString(Buffer.concat([seed, publicKey])),
    sshString(comment),
  ];
  let secret = Buffer.concat(parts);
  const padding: number[] = [];
  for (let i = 1; (secret.length + padding.length) % 8 !== 0; i++) padding.push(i);
  secret = Buffer.concat([secret, Buffer.from(padding)]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0'),
    sshString('none'),
    sshString('none'),
    sshString(''),
    Buffer.from([0, 0, 0, 1]),
    sshString(ed25519PublicBlob(publicKey)),
    sshString(secret),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

const fingerprintOf = (blob: Buffer) => `SHA256:${crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;

/** A new Ed25519 deploy key: the public line for the git host, the private key for the platform. */
export function generateDeployKey(comment = 'launchbay'): DeployKey {
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  const { seed, publicKey } = ed25519Parts(privateKey);
  const blob = ed25519PublicBlob(publicKey);
  return {
    publicKey: `ssh-ed25519 ${blob.toString('base64')} ${comment}`,
    privateKeyPem: openSshPrivateKey(seed, publicKey, comment),
    fingerprint: fingerprintOf(blob),
  };
}

/**
 * A private key as ssh reads it: OpenSSH keys as they are (refused when protected by a passphrase:
 * nobody could type it), Ed25519 PKCS#8 PEM turned into OpenSSH's format, RSA/ECDSA PEM as they are.
 */
function sshKeyFile(key: string): string {
  const text = `${key.trim()}\n`;
  const openssh = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]+?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (openssh) {
    const body = Buffer.from(openssh[1]!.replace(/\s+/g, ''), 'base64');
    const magic = 'openssh-key-v1\0';
    if (body.subarray(0, magic.length).toString('latin1') !== magic)
      throw new Error('This is not a readable OpenSSH private key');
    const cipherLength = body.readUInt32BE(magic.length);
    const cipher = body.subarray(magic.length + 4, magic.length + 4 + cipherLength).toString('latin1');
    if (cipher !== 'none') throw new Error('The SSH key is protected by a passphrase: use a key without one');
    return text;
  }
  let parsed: crypto.KeyObject;
  try {
    parsed = crypto.createPrivateKey(text);
  } catch {
    throw new Error('This is not a private key (expected an OpenSSH or PEM private key, without a passphrase)');
  }
  if (parsed.asymmetricKeyType === 'ed25519') {
    const { seed, publicKey } = ed25519Parts(parsed);
    return openSshPrivateKey(seed, publicKey, 'launchbay');
  }
  return text;
}

/** Where the platform keeps the SSH host keys it has seen (trust on first use): `<dataDir>/ssh/known_hosts`. */
export const knownHostsPath = (dataDir: string) => path.join(dataDir, 'ssh', 'known_hosts');

// ---------------------------------------------------------------------------------------------
// Failures

export type GitFailureReason =
  /** The URL, branch, token or key is not usable; `field` says which. */
  | 'invalid'
  /** The outbound guard refused the host (private network not allowed, or never allowed). */
  | 'refused'
  /** DNS, connection, TLS, or no answer in time. */
  | 'unreachable'
  /** The token or deploy key was refused, or one is needed. */
  | 'auth_failed'
  /** No repository at that URL (or one the credentials cannot see). */
  | 'not_found'
  | 'branch_not_found'
  /** The repository has no commits. */
  | 'empty'
  /** The commit asked for is not on the branch. */
  | 'commit_not_found'
  /** The SSH host key differs from the one seen before. */
  | 'host_key_changed'
  /** fetchCommit ran out of time. */
  | 'timeout'
  /** fetchCommit was cancelled through its signal. */
  | 'aborted'
  | 'failed';

export type GitFailureField = 'url' | 'token' | 'branch' | 'commit' | 'sshKey';

export type GitFailure = {
  ok: false;
  reason: GitFailureReason;
  /** For people (a 400 field error, a build log line); never holds the token. */
  message: string;
  /** The form field the failure is about. */
  field: GitFailureField;
  /** For branch_not_found: the branches there are. */
  branches?: string[];
};

/** What fetchCommit throws. */
export class GitSourceError extends Error {
  readonly reason: GitFailureReason;
  readonly field: GitFailureField;
  constructor(failure: Omit<GitFailure, 'ok'>) {
    super(failure.message);
    this.name = 'GitSourceError';
    this.reason = failure.reason;
    this.field = failure.field;
  }
}

const fail = (reason: GitFailureReason, field: GitFailureField, message: string, branches?: string[]): GitFailure => ({
  ok: false,
  reason,
  field,
  message,
  ...(branches ? { branches } : {}),
});

/** Cuts every secret out of a text (a message, a log line). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Access: the settings, environment and files one repository's git commands run with

export type GitAccessOptions = {
  url: string;
  /** An access token for https:// (GitHub/GitLab/Gitea personal or app tokens); ignored for SSH. */
  token?: string | null;
  /** The user name sent with the token: `x-access-token` (GitHub; GitLab and Gitea accept any), `x-token-auth` for Bitbucket. */
  tokenUser?: string;
  /** A deploy key (private, OpenSSH or PEM) for SSH URLs. */
  sshKey?: string | null;
  /** Host keys seen before (knownHostsPath(dataDir)); a new host is added, a changed key refused. Default: a throwaway file. */
  knownHostsFile?: string;
  /** The `allow_private_network_targets` setting: whether private and loopback hosts may be reached. */
  allowPrivateNetwork: boolean;
  /** DNS for the guard (tests). */
  resolver?: Resolver;
};

export type GitAccess = {
  url: GitUrl;
  /** `-c key=value` settings put before the git subcommand: never a secret. */
  configArgs: string[];
  /** The whole environment of the git process (nothing inherited but PATH); the token header lives here. */
  env: Record<string, string>;
  /** What to cut out of anything shown. */
  secrets: string[];
  hasToken: boolean;
  hasKey: boolean;
  /** Removes the key file and the temp folder. */
  cleanup(): void;
};

async function withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(what), { code: 'ETIMEDOUT' })), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks the URL, token and key, asks the outbound guard about the host and builds what git runs
 * with. Answers a GitFailure instead when any of that refuses. The caller must call cleanup().
 */
export async function prepareGitAccess(
  options: GitAccessOptions,
  deadline = Date.now() + 15_000,
): Promise<GitAccess | GitFailure> {
  let url: GitUrl;
  try {
    url = parseGitUrl(options.url);
  } catch (error) {
    if (error instanceof GitUrlError) return fail('invalid', 'url', error.message);
    throw error;
  }
  const token = options.token?.trim() || null;
  const tokenUser = options.tokenUser ?? 'x-access-token';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (token !== null && (/[\s\u0000-\u001f\u007f]/.test(token) || token.length > 4096))
    return fail('invalid', 'token', 'The token contains spaces or line breaks: paste only the token');
  if (!/^[A-Za-z0-9_.-]+$/.test(tokenUser))
    return fail('invalid', 'token', 'The token user name has characters git hosts do not use');

  let addresses: ResolvedAddress[];
  try {
    addresses = await withDeadline(
      resolveOutbound(url.host, { allowPrivateNetworks: options.allowPrivateNetwork }, options.resolver),
      deadline,
      'DNS timeout',
    );
  } catch (error) {
    const refusal = outboundRefusal(error);
    if (refusal) return fail('refused', 'url', refusal.message);
    const code = (error as NodeJS.ErrnoException).code;
    return fail(
      'unreachable',
      'url',
      code === 'ETIMEDOUT'
        ? `The repository cannot be reached: looking up ${url.host} took too long`
        : `The repository cannot be reached: the host ${url.host} was not found (DNS)`,
    );
  }
  if (url.protocol === 'http') {
    const open = addresses.find((a) => classifyAddress(a.address).reach === 'public');
    if (open)
      return fail(
        'refused',
        'url',
        `Use https://: ${url.host} resolves to ${open.address}, a public address, and plain http:// is only for private networks`,
      );
  }

  const configArgs = [
    '-c',
    'credential.helper=',
    '-c',
    'core.askPass=',
    '-c',
    'http.followRedirects=false',
    '-c',
    'protocol.version=2',
    '-c',
    'advice.detachedHead=false',
  ];
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: os.tmpdir(),
    LC_ALL: 'C',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    SSH_ASKPASS_REQUIRE: 'never',
    GCM_INTERACTIVE: 'never',
    GIT_ALLOW_PROTOCOL: url.protocol,
    GIT_LFS_SKIP_SMUDGE: '1',
    GIT_CONFIG_COUNT: '0',
  };
  const secrets: string[] = [];
  let tempDir: string | null = null;
  const cleanup = () => {
    if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
    tempDir = null;
  };
  const pinned = !net.isIP(url.host);

  if (url.protocol === 'ssh') {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-git-'));
    fs.chmodSync(tempDir, 0o700);
    // An empty HOME: ssh finds none of the server's own keys or config there.
    env.HOME = tempDir;
    let keyFile: string | null = null;
    if (options.sshKey?.trim()) {
      let keyText: string;
      try {
        keyText = sshKeyFile(options.sshKey);
      } catch (error) {
        cleanup();
        return fail('invalid', 'sshKey', (error as Error).message);
      }
      keyFile = path.join(tempDir, 'deploy_key');
      fs.writeFileSync(keyFile, keyText, { mode: 0o600 });
    }
    const knownHosts = options.knownHostsFile ?? path.join(tempDir, 'known_hosts');
    fs.mkdirSync(path.dirname(knownHosts), { recursive: true, mode: 0o700 });
    const connectTimeout = Math.max(1, Math.min(30, Math.ceil((deadline - Date.now()) / 1000)));
    const ssh = [
      'ssh',
      '-F',
      '/dev/null',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=accept-new',
      '-o',
      `UserKnownHostsFile=${knownHosts}`,
      '-o',
      'GlobalKnownHostsFile=/dev/null',
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'IdentityAgent=none',
      '-o',
      'PasswordAuthentication=no',
      '-o',
      'KbdInteractiveAuthentication=no',
      '-o',
      `ConnectTimeout=${connectTimeout}`,
      '-o',
      'ServerAliveInterval=15',
      '-o',
      'ServerAliveCountMax=4',
    ];
    if (keyFile) ssh.push('-i', keyFile);
    else ssh.push('-o', 'PubkeyAuthentication=no');
    if (pinned) {
      // Connect to the checked address; host keys stay filed under the name.
      const alias = url.port === null || url.port === 22 ? url.host : `[${url.host}]:${url.port}`;
      ssh.push('-o', `HostName=${addresses[0]!.address}`, '-o', `HostKeyAlias=${alias}`);
    }
    env.GIT_SSH_COMMAND = ssh.map(shellQuote).join(' ');
    env.GIT_SSH_VARIANT = 'ssh';
    return { url, configArgs, env, secrets, hasToken: false, hasKey: keyFile !== null, cleanup };
  }

  const port = url.port ?? (url.protocol === 'https' ? 443 : 80);
  if (pinned)
    configArgs.push('-c', `http.curloptResolve=${url.host}:${port}:${addresses.map((a) => bracketed(a.address)).join(',')}`);
  if (token !== null) {
    const basic = Buffer.from(`${tokenUser}:${token}`).toString('base64');
    const header = `Authorization: Basic ${basic}`;
    // Only for this origin: git sends it nowhere else.
    const origin = `${url.protocol}://${bracketed(url.host)}${url.port === null ? '' : `:${url.port}`}/`;
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = `http.${origin}.extraHeader`;
    env.GIT_CONFIG_VALUE_0 = header;
    secrets.push(header, basic, token, encodeURIComponent(token));
  }
  return { url, configArgs, env, secrets, hasToken: token !== null, hasKey: false, cleanup };
}

// ---------------------------------------------------------------------------------------------
// Running git

type GitRun = { code: number | null; stdout: string; stderr: string; timedOut: boolean; aborted: boolean };

const MAX_OUTPUT = 16 * 1024 * 1024;

/** Runs git with the access's settings until it exits or the deadline passes (then its process group is killed). */
function runGit(
  access: GitAccess,
  args: string[],
  options: { cwd?: string; deadline: number; signal?: AbortSignal; onLine?: (line: string) => void },
): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    if (Date.now() >= options.deadline) return resolve({ code: null, stdout: '', stderr: '', timedOut: true, aborted: false });
    if (options.signal?.aborted) return resolve({ code: null, stdout: '', stderr: '', timedOut: false, aborted: true });
    const child = spawn('git', [...access.configArgs, ...args], {
      cwd: options.cwd,
      env: access.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A session of its own: no terminal to prompt on, and one group to kill.
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let aborted = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(
      () => {
        timedOut = true;
        kill();
      },
      Math.max(0, options.deadline - Date.now()),
    );
    const onAbort = () => {
      aborted = true;
      kill();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const lines = (stream: NodeJS.ReadableStream, append: (text: string) => void) => {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        append(chunk);
        if (!options.onLine) return;
        const parts = (partial + chunk).split(/\r\n|\r|\n/);
        partial = parts.pop() ?? '';
        for (const line of parts) if (line.trim()) options.onLine(redactSecrets(line, access.secrets));
      });
      stream.on('end', () => {
        if (options.onLine && partial.trim()) options.onLine(redactSecrets(partial, access.secrets));
      });
    };
    lines(child.stdout, (text) => {
      if (stdout.length < MAX_OUTPUT) stdout += text;
    });
    lines(child.stderr, (text) => {
      if (stderr.length < MAX_OUTPUT) stderr += text;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error.code === 'ENOENT')
        reject(new GitSourceError({ reason: 'failed', field: 'url', message: 'git is not installed on this server' }));
      else reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ code, stdout, stderr: redactSecrets(stderr, access.secrets), timedOut, aborted });
    });
  });
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/** The last meaningful line git wrote, for messages that have nothing better. */
function lastLine(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^Please make sure you have the correct access rights|^and the repository exists/.test(l));
  return (lines.find((l) => l.startsWith('fatal:') || l.startsWith('error:')) ?? lines[lines.length - 1] ?? '').slice(0, 500);
}

/** Says what a failed git run means, from what git and ssh wrote (LC_ALL=C: English). */
function explain(run: GitRun, access: GitAccess, timeoutMs: number, what: string): GitFailure {
  const { url } = access;
  const where = displayUrl(url);
  const err = run.stderr;
  if (run.aborted) return fail('aborted', 'url', `${what} was cancelled`);
  if (run.timedOut)
    return fail(
      'unreachable',
      'url',
      `The repository cannot be reached: ${url.host} did not answer within ${seconds(timeoutMs)}`,
    );
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/i.test(err))
    return fail(
      'host_key_changed',
      'url',
      `The SSH host key of ${url.host} is not the one the platform saw before: if the host really changed its key, remove its line from the platform's known_hosts file`,
    );
  if (
    /Could not resolve host|Could not resolve hostname|Name or service not known|Temporary failure in name resolution/i.test(err)
  )
    return fail('unreachable', 'url', `The repository cannot be reached: the host ${url.host} was not found (DNS)`);
  if (/SSL certificate problem|certificate verify|server certificate verification failed|SSL: no alternative/i.test(err))
    return fail('unreachable', 'url', `The repository cannot be reached: the TLS certificate of ${url.host} is not trusted`);
  if (/SSL routines|wrong version number|SSL_connect|SSL_ERROR|gnutls_handshake|TLS connect error/i.test(err))
    return fail(
      'unreachable',
      'url',
      `The repository cannot be reached: the TLS handshake with ${url.host} failed (does it serve https?)`,
    );
  if (
    /could not read (Username|Password)|Authentication failed|returned error: 40[13]|Permission denied|Invalid username or password|HTTP Basic: Access denied|terminal prompts disabled|access denied|not authorized/i.test(
      err,
    )
  ) {
    if (url.protocol === 'ssh')
      return fail(
        'auth_failed',
        'sshKey',
        access.hasKey
          ? `Authentication failed: ${url.host} refused the deploy key (add its public key to the repository's deploy keys)`
          : `Authentication failed: ${url.host} needs a deploy key for SSH`,
      );
    return fail(
      'auth_failed',
      'token',
      access.hasToken
        ? `Authentication failed: ${url.host} refused the access token (check that it is valid and can read this repository)`
        : `Authentication failed: ${where} needs an access token (a private repository, or one that does not exist)`,
    );
  }
  if (
    /Failed to connect|Couldn't connect|Connection refused|Connection timed out|Operation timed out|No route to host|Network is unreachable|Connection reset|Empty reply from server|Recv failure|Send failure|Connection closed by|kex_exchange_identification|Could not connect/i.test(
      err,
    )
  )
    return fail(
      'unreachable',
      'url',
      `The repository cannot be reached: no connection to ${url.host}${url.port ? ` port ${url.port}` : ''}`,
    );
  if (/returned error: 30\d|redirect/i.test(err))
    return fail('not_found', 'url', `${url.host} answered with a redirect: enter the repository's current clone URL`);
  if (
    /repository '.*' not found|Repository not found|does not appear to be a git repository|returned error: 404|project you were looking for could not be found|No such repository|repository does not exist/i.test(
      err,
    )
  )
    return fail(
      'not_found',
      'url',
      access.hasToken || access.hasKey
        ? `The repository ${where} does not exist, or the credentials given cannot see it`
        : `The repository ${where} does not exist`,
    );
  return fail('failed', 'url', `${what} failed: ${lastLine(err) || `git exited with ${run.code}`}`);
}

/** main, then master, then the rest alphabetically. */
function sortBranches(branches: string[]): string[] {
  const rank = (b: string) => (b === 'main' ? 0 : b === 'master' ? 1 : 2);
  return [...branches].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function listForMessage(branches: string[]): string {
  const shown = branches.slice(0, 5).map((b) => `"${b}"`);
  return branches.length > 5 ? `${shown.join(', ')} and ${branches.length - 5} more` : shown.join(', ');
}

// ---------------------------------------------------------------------------------------------
// Checking a repository

export type CheckRemoteOptions = GitAccessOptions & {
  branch: string;
  /** Default 15 s, DNS included. */
  timeoutMs?: number;
  signal?: AbortSignal;
};

export type RemoteCheck = { ok: true; headSha: string; branches: string[] } | GitFailure;

/**
 * `git ls-remote` before a project is created: answers the branch's head commit, or what is wrong
 * (URL, guard, reachability, authentication, repository, branch), never throwing for those.
 */
export async function checkRemote(options: CheckRemoteOptions): Promise<RemoteCheck> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  if (!isValidBranchName(options.branch)) return fail('invalid', 'branch', `"${options.branch}" is not a valid branch name`);
  const access = await prepareGitAccess(options, deadline);
  if ('ok' in access) return access;
  try {
    const run = await runGit(access, ['ls-remote', '--heads', '--', access.url.remote], { deadline, signal: options.signal });
    if (run.code !== 0 || run.timedOut || run.aborted) return explain(run, access, timeoutMs, 'Checking the repository');
    const heads = new Map<string, string>();
    for (const line of run.stdout.split('\n')) {
      const match = /^([0-9a-f]{40,64})\trefs\/heads\/(.+)$/.exec(line.trim());
      if (match) heads.set(match[2]!, match[1]!);
    }
    const branches = sortBranches([...heads.keys()]);
    const headSha = heads.get(options.branch);
    if (headSha) return { ok: true, headSha, branches };
    if (branches.length === 0)
      return fail(
        'empty',
        'branch',
        `The repository ${displayUrl(access.url)} is empty: push a commit to "${options.branch}" first`,
        [],
      );
    return fail(
      'branch_not_found',
      'branch',
      `The branch "${options.branch}" does not exist in ${displayUrl(access.url)}. Its branches: ${listForMessage(branches)}`,
      branches,
    );
  } finally {
    access.cleanup();
  }
}

// ---------------------------------------------------------------------------------------------
// Fetching one commit

/**
 * Git access to a repository on this machine: the platform's own git remote (a bare repository
 * in the data folder, filled by `git push`). Nothing to resolve or guard: only `file` is allowed.
 */
export function localGitAccess(repoDir: string): GitAccess {
  return {
    url: {
      protocol: 'https',
      host: 'localhost',
      port: null,
      user: null,
      path: path.basename(repoDir),
      owner: null,
      name: path.basename(repoDir, '.git'),
      remote: repoDir,
    },
    configArgs: ['-c', 'advice.detachedHead=false', '-c', 'protocol.version=2'],
    env: {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: os.tmpdir(),
      LC_ALL: 'C',
      LANG: 'C',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_TERMINAL_PROMPT: '0',
      GIT_ALLOW_PROTOCOL: 'file',
    },
    secrets: [],
    hasToken: false,
    hasKey: false,
    cleanup: () => undefined,
  };
}

export type FetchCommitOptions = GitAccessOptions & {
  /** Fetch from this repository on disk (the platform's own remote) instead of `url`. */
  localRepo?: string;
  branch: string;
  /** The exact commit (full sha); the branch's head when absent. */
  commit?: string | null;
  /** An empty or missing folder: the working tree lands here (with its .git). */
  dir: string;
  /** Receives every line for the build log, the token cut out. */
  log?: (line: string) => void;
  /** Default 10 min for all steps together. */
  timeoutMs?: number;
  signal?: AbortSignal;
};

export type FetchedCommit = {
  sha: string;
  /** The whole commit message, trimmed. */
  message: string;
  author: { name: string; email: string };
  committedAt: Date;
};

/** Commits the server would not hand out by sha (protocol v0 without allowReachableSHA1InWant) or does not have. */
const SHA_NOT_SERVED = /not our ref|unadvertised object|couldn't find remote ref|no such remote ref|Couldn't find remote ref/i;

/**
 * Gets exactly one commit into `dir`: init, then a shallow fetch of that sha (protocol v2 servers
 * such as GitHub, GitLab and git itself allow it); when the server does not serve commits by sha,
 * the branch's recent history (50 commits, then all of it) and a checkout of the sha. Throws a
 * GitSourceError. Submodules are not fetched.
 */
export async function fetchCommit(options: FetchCommitOptions): Promise<FetchedCommit> {
  const timeoutMs = options.timeoutMs ?? 10 * 60_000;
  const deadline = Date.now() + timeoutMs;
  const log = options.log ?? (() => undefined);
  const commit = options.commit?.trim().toLowerCase() || null;
  if (!isValidBranchName(options.branch))
    throw new GitSourceError({ reason: 'invalid', field: 'branch', message: `"${options.branch}" is not a valid branch name` });
  if (commit !== null && !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(commit))
    throw new GitSourceError({ reason: 'invalid', field: 'commit', message: `"${options.commit}" is not a full commit sha` });
  if (fs.existsSync(options.dir) && fs.readdirSync(options.dir).length > 0)
    throw new Error(`fetchCommit needs an empty folder: ${options.dir} is not empty`);

  const access = options.localRepo ? localGitAccess(options.localRepo) : await prepareGitAccess(options, deadline);
  if ('ok' in access) throw new GitSourceError(access);
  const what = 'Fetching the repository';
  const git = async (args: string[], quiet = false) => {
    const run = await runGit(access, args, {
      cwd: options.dir,
      deadline,
      signal: options.signal,
      onLine: quiet ? undefined : log,
    });
    if (run.timedOut)
      throw new GitSourceError({
        reason: 'timeout',
        field: 'url',
        message: `${what} took longer than ${seconds(timeoutMs)}`,
      });
    if (run.aborted) throw new GitSourceError({ reason: 'aborted', field: 'url', message: `${what} was cancelled` });
    return run;
  };
  const must = async (args: string[], quiet = false) => {
    const run = await git(args, quiet);
    if (run.code !== 0) throw new GitSourceError(explain(run, access, timeoutMs, what));
    return run.stdout;
  };
  const has = async (sha: string) => (await git(['cat-file', '-e', `${sha}^{commit}`], true)).code === 0;

  try {
    fs.mkdirSync(options.dir, { recursive: true });
    await must(['init', '--quiet'], true);
    await must(['remote', 'add', 'origin', access.url.remote], true);
    const where = displayUrl(access.url);
    const tracking = `+refs/heads/${options.branch}:refs/remotes/origin/${options.branch}`;
    let target: string;
    if (commit !== null) {
      log(`Fetching commit ${commit.slice(0, 12)} (branch ${options.branch}) from ${where}`);
      const run = await git(['fetch', '--depth=1', '--no-tags', '--no-recurse-submodules', 'origin', commit]);
      if (run.code !== 0) {
        if (!SHA_NOT_SERVED.test(run.stderr)) throw new GitSourceError(explain(run, access, timeoutMs, what));
        log(`The server does not hand out commit ${commit.slice(0, 12)} by itself: fetching the history of ${options.branch}`);
        const branchRun = await git(['fetch', '--depth=50', '--no-tags', '--no-recurse-submodules', 'origin', tracking]);
        if (branchRun.code !== 0) throw branchFailure(branchRun, access, timeoutMs, options.branch);
        if (!(await has(commit)) && fs.existsSync(path.join(options.dir, '.git', 'shallow')))
          await must(['fetch', '--unshallow', '--no-tags', '--no-recurse-submodules', 'origin', tracking]);
      }
      if (!(await has(commit)))
        throw new GitSourceError({
          reason: 'commit_not_found',
          field: 'commit',
          message: `The commit ${commit} is not in ${where} (on branch ${options.branch}): it may have been force-pushed away`,
        });
      target = commit;
    } else {
      log(`Fetching the head of ${options.branch} from ${where}`);
      const run = await git(['fetch', '--depth=1', '--no-tags', '--no-recurse-submodules', 'origin', tracking]);
      if (run.code !== 0) throw branchFailure(run, access, timeoutMs, options.branch);
      target = `refs/remotes/origin/${options.branch}`;
    }
    await must(['checkout', '--quiet', '--detach', target]);
    const out = await must(['log', '-1', '--format=%H%x00%an%x00%ae%x00%cI%x00%B', 'HEAD'], true);
    const [sha = '', name = '', email = '', date = '', ...body] = out.split('\0');
    const fetched: FetchedCommit = {
      sha,
      message: body.join('\0').trim(),
      author: { name, email },
      committedAt: new Date(date),
    };
    log(`Checked out ${sha.slice(0, 12)}: ${fetched.message.split('\n')[0]} (${name}, ${date})`);
    if (fs.existsSync(path.join(options.dir, '.gitmodules')))
      log('This repository has submodules (.gitmodules): they are not fetched, so their folders are empty');
    return fetched;
  } finally {
    access.cleanup();
  }
}

function branchFailure(run: GitRun, access: GitAccess, timeoutMs: number, branch: string): GitSourceError {
  if (/couldn't find remote ref/i.test(run.stderr))
    return new GitSourceError({
      reason: 'branch_not_found',
      field: 'branch',
      message: `The branch "${branch}" does not exist in ${displayUrl(access.url)}`,
    });
  return new GitSourceError(explain(run, access, timeoutMs, 'Fetching the repository'));
}
