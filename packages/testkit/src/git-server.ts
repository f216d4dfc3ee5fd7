import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A real git server for tests: bare repositories in a temp folder, served over HTTP on 127.0.0.1
 * by `git http-backend` (run as a CGI program per request, the way Apache or nginx run it), with
 * clone/fetch (upload-pack) and push (receive-pack). Created with a token, it answers 401 with
 * `WWW-Authenticate: Basic` to a request whose Basic password is not that token (any user name),
 * like GitHub with a personal access token. Every request is recorded, so a test can count how
 * often the platform fetched.
 *
 * Repositories are made with createRepo(): a working copy beside the served bare repository;
 * commit() writes files there, commits and pushes over HTTP (through this server, token and all),
 * and answers the new commit's sha. No global git config is needed: every git command gets its
 * identity and settings on the command line.
 */

export type GitServerOptions = {
  /** When set, every request needs HTTP Basic auth with this token as the password. */
  token?: string;
  /**
   * Whether the server speaks protocol v2 (the `Git-Protocol` header is handed to http-backend).
   * v2 lets a client fetch any commit by sha; v0 (false) only the advertised refs, unless
   * `allowReachableSha1InWant`. Default true, like GitHub and GitLab.
   */
  protocolV2?: boolean;
  /** `uploadpack.allowReachableSHA1InWant`: lets a v0 client fetch an unadvertised but reachable commit. */
  allowReachableSha1InWant?: boolean;
};

export type GitRequest = {
  method: string;
  /** The path without the query, e.g. `/acme/site.git/info/refs`. */
  path: string;
  query: string;
  /** The repository the request is for, as named to createRepo() (`acme/site`), or null. */
  repo: string | null;
  /** `git-upload-pack` (clone, fetch, ls-remote) or `git-receive-pack` (push), or null for other requests. */
  service: 'git-upload-pack' | 'git-receive-pack' | null;
  /** The Basic user name sent, if any. */
  user: string | null;
  authorization: string | null;
  status: number;
  at: number;
};

export type TestRepo = {
  /** As given to createRepo(), e.g. `acme/site`. */
  name: string;
  /** The clone URL: `http://127.0.0.1:PORT/acme/site.git` (no credentials in it). */
  url: string;
  /** The served bare repository. */
  bareDir: string;
  /** The working copy commit() writes to. */
  workDir: string;
  defaultBranch: string;
  /**
   * Writes the files (a null content deletes the file; paths may contain folders), commits them on
   * the branch (the default branch unless given; a new branch starts from the current commit of the
   * default branch) and pushes over HTTP. Answers the new commit's sha.
   */
  commit(files: Record<string, string | null>, message?: string, options?: { branch?: string }): Promise<string>;
  /** Creates a branch at `from` (a sha or branch; default: the default branch's head) and pushes it. Answers its sha. */
  addBranch(branch: string, from?: string): Promise<string>;
  /** Deletes a branch on the server. */
  deleteBranch(branch: string): Promise<void>;
  /** Every branch on the server and the sha it points at. */
  branchHeads(): Promise<Record<string, string>>;
  /** The sha a branch points at on the server (default branch unless given). */
  head(branch?: string): Promise<string>;
  /** The requests made for this repository, e.g. `requests('git-upload-pack')` to count fetches. */
  requests(service?: GitRequest['service']): GitRequest[];
  /**
   * How many times a client fetched or listed this repository: one `info/refs?service=git-upload-pack`
   * request starts every clone, fetch and ls-remote (the counts exclude 401 answers).
   */
  fetchCount(): number;
};

export type GitServer = {
  port: number;
  /** `http://127.0.0.1:PORT` */
  baseUrl: string;
  token: string | undefined;
  /** The folder served (GIT_PROJECT_ROOT). */
  root: string;
  /** Every request, in order. */
  requests: GitRequest[];
  /** The URL a repository of this name has (or would have): for tests of a missing repository. */
  urlFor(name: string): string;
  /**
   * A new repository with one commit of `files` on `branch` (default `main`), or none when `empty`.
   * `name` may have folders: `acme/site` is served at `/acme/site.git`.
   */
  createRepo(
    name: string,
    files: Record<string, string>,
    options?: { branch?: string; message?: string; empty?: boolean },
  ): Promise<TestRepo>;
  /** Stops the server and removes every repository. */
  close(): Promise<void>;
};

const execFileAsync = promisify(execFile);

/** The identity and settings every git command of the kit runs with: nothing comes from a global config. */
const GIT_CONFIG = [
  '-c',
  'user.name=Launchbay Test',
  '-c',
  'user.email=test@launchbay.invalid',
  '-c',
  'commit.gpgsign=false',
  '-c',
  'init.defaultBranch=main',
  '-c',
  'credential.helper=',
  '-c',
  'protocol.version=2',
];

function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: os.tmpdir(),
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  };
}

async function git(args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await execFileAsync('git', [...GIT_CONFIG, ...args], {
      cwd,
      env: gitEnv(env),
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const e = error as Error & { stderr?: string };
    throw new Error(`git ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
  }
}

const REPO_NAME = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** The repository a request path names: `/acme/site.git/info/refs` -> `acme/site`. */
function repoOfPath(pathname: string): string | null {
  const match = /^\/(.+?)\.git(?:\/|$)/.exec(pathname);
  return match ? match[1]! : null;
}

function serviceOf(pathname: string, query: URLSearchParams): GitRequest['service'] {
  const service = pathname.endsWith('/info/refs') ? query.get('service') : pathname.slice(pathname.lastIndexOf('/') + 1);
  return service === 'git-upload-pack' || service === 'git-receive-pack' ? service : null;
}

function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The HTTP head of a CGI answer: `Status: 404 Not Found` plus header lines, up to the blank line. */
function parseCgiHead(head: string): { status: number; headers: [string, string][] } {
  let status = 200;
  const headers: [string, string][] = [];
  for (const line of head.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers.push([name, value]);
  }
  return { status, headers };
}

/** Starts a git HTTP server on 127.0.0.1 (a port of the OS's choosing). */
export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-git-server-'));
  const root = path.join(tmp, 'repos');
  const workRoot = path.join(tmp, 'work');
  fs.mkdirSync(root);
  fs.mkdirSync(workRoot);
  const requests: GitRequest[] = [];
  const sockets = new Set<Socket>();
  const children = new Set<ChildProcess>();
  const protocolV2 = options.protocolV2 ?? true;

  // Settings for http-backend and the upload-pack/receive-pack it runs, for every repository.
  const serverConfig: [string, string][] = [['http.receivepack', 'true']];
  if (options.allowReachableSha1InWant) serverConfig.push(['uploadpack.allowReachableSHA1InWant', 'true']);
  const serverConfigEnv: Record<string, string> = { GIT_CONFIG_COUNT: String(serverConfig.length) };
  serverConfig.forEach(([key, value], index) => {
    serverConfigEnv[`GIT_CONFIG_KEY_${index}`] = key;
    serverConfigEnv[`GIT_CONFIG_VALUE_${index}`] = value;
  });

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const parsed = new URL(req.url ?? '/', 'http://127.0.0.1');
    const credentials = basicCredentials(req.headers.authorization);
    const record: GitRequest = {
      method: req.method ?? 'GET',
      path: parsed.pathname,
      query: parsed.search.replace(/^\?/, ''),
      repo: repoOfPath(parsed.pathname),
      service: serviceOf(parsed.pathname, parsed.searchParams),
      user: credentials?.user ?? null,
      authorization: req.headers.authorization ?? null,
      status: 0,
      at: Date.now(),
    };
    requests.push(record);
    const answer = (status: number, body: string, headers: Record<string, string> = {}) => {
      record.status = status;
      req.resume();
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(body);
    };

    if (options.token !== undefined && credentials?.password !== options.token) {
      answer(401, 'Authentication required\n', { 'www-authenticate': 'Basic realm="launchbay-test-git"' });
      return;
    }

    // The CGI environment (RFC 3875): request headers as HTTP_*, which is how http-backend sees
    // Content-Encoding (gzipped requests) and Git-Protocol (protocol v2).
    const env: Record<string, string> = {
      ...(gitEnv(serverConfigEnv) as Record<string, string>),
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
      SERVER_SOFTWARE: 'launchbay-testkit',
      REQUEST_METHOD: record.method,
      PATH_INFO: decodeURIComponent(parsed.pathname),
      QUERY_STRING: record.query,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
    };
    if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
    if (credentials) {
      env.REMOTE_USER = credentials.user || 'token';
      env.AUTH_TYPE = 'Basic';
    }
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name === 'authorization' || name === 'content-type' || name === 'content-length') continue;
      if (name === 'git-protocol' && !protocolV2) continue;
      env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(', ') : value;
    }
    if (protocolV2 && typeof req.headers['git-protocol'] === 'string') env.GIT_PROTOCOL = req.headers['git-protocol'];

    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    children.add(child);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.stdin.on('error', () => undefined); // a backend that answers before reading everything (a 404)
    req.pipe(child.stdin);

    let head = Buffer.alloc(0);
    let started = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (started) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const text = head.toString('latin1');
      const crlf = text.indexOf('\r\n\r\n');
      const lf = text.indexOf('\n\n');
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
      if (end < 0) return;
      const { status, headers } = parseCgiHead(text.slice(0, end));
      record.status = status;
      started = true;
      res.writeHead(status, headers);
      if (head.length > end) res.write(head.subarray(end));
    });
    child.on('error', (error) => {
      children.delete(child);
      if (!started) answer(500, `git http-backend did not start: ${error.message}\n`);
      else res.destroy();
    });
    child.on('close', (code) => {
      children.delete(child);
      if (!started) answer(500, `git http-backend exited (${code}) without an answer: ${stderr}\n`);
      else res.end();
    });
  };

  const server = http.createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const urlFor = (name: string) => `${baseUrl}/${name}.git`;

  // What the kit itself sends when it pushes: the token as an extra header, never in the URL.
  const authEnv: Record<string, string> =
    options.token === undefined
      ? {}
      : {
          GIT_CONFIG_COUNT: '1',
          GIT_CONFIG_KEY_0: 'http.extraHeader',
          GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`test:${options.token}`).toString('base64')}`,
        };

  const createRepo: GitServer['createRepo'] = async (name, files, repoOptions = {}) => {
    if (!REPO_NAME.test(name) || name.split('/').some((part) => part === '.' || part === '..'))
      throw new Error(`Not a repository name for the test git server: ${name}`);
    const branch = repoOptions.branch ?? 'main';
    const bareDir = path.join(root, `${name}.git`);
    const workDir = path.join(workRoot, name);
    if (fs.existsSync(bareDir)) throw new Error(`The test git server already has a repository ${name}`);
    fs.mkdirSync(path.dirname(bareDir), { recursive: true });
    fs.mkdirSync(workDir, { recursive: true });
    await git(['init', '--quiet', '--bare', `--initial-branch=${branch}`, bareDir], root);
    await git(['init', '--quiet', `--initial-branch=${branch}`, workDir], workDir);
    const url = urlFor(name);
    await git(['remote', 'add', 'origin', url], workDir);

    const writeFiles = (changes: Record<string, string | null>) => {
      for (const [file, content] of Object.entries(changes)) {
        const target = path.join(workDir, file);
        if (!target.startsWith(`${workDir}${path.sep}`)) throw new Error(`A file outside the repository: ${file}`);
        if (content === null) fs.rmSync(target, { force: true });
        else {
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, content);
        }
      }
    };
    const push = (refspec: string) => git(['push', '--quiet', 'origin', refspec], workDir, authEnv);
    const headOf = async (ref: string) => (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], bareDir)).trim();

    const repo: TestRepo = {
      name,
      url,
      bareDir,
      workDir,
      defaultBranch: branch,
      commit: async (changes, message = 'Update', commitOptions = {}) => {
        const target = commitOptions.branch ?? branch;
        const current = (await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], workDir)).trim();
        if (current !== target) {
          const exists = (await git(['branch', '--list', target], workDir)).trim() !== '';
          await git(exists ? ['checkout', '--quiet', target] : ['checkout', '--quiet', '-b', target, branch], workDir);
        }
        writeFiles(changes);
        await git(['add', '--all'], workDir);
        await git(['commit', '--quiet', '--allow-empty', '-m', message], workDir);
        await push(`HEAD:refs/heads/${target}`);
        return (await git(['rev-parse', 'HEAD'], workDir)).trim();
      },
      addBranch: async (newBranch, from = branch) => {
        const sha = (await git(['rev-parse', '--verify', `${from}^{commit}`], workDir)).trim();
        await git(['branch', newBranch, sha], workDir);
        await push(`${sha}:refs/heads/${newBranch}`);
        return sha;
      },
      deleteBranch: async (oldBranch) => {
        await push(`:refs/heads/${oldBranch}`);
      },
      branchHeads: async () => {
        const out = await git(['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads/'], bareDir);
        const heads: Record<string, string> = {};
        for (const line of out.split('\n')) {
          const [ref, sha] = line.split(' ');
          if (ref && sha) heads[ref] = sha;
        }
        return heads;
      },
      head: (of = branch) => headOf(`refs/heads/${of}`),
      requests: (service) => requests.filter((r) => r.repo === name && (service === undefined || r.service === service)),
      fetchCount: () =>
        requests.filter(
          (r) => r.repo === name && r.service === 'git-upload-pack' && r.path.endsWith('/info/refs') && r.status !== 401,
        ).length,
    };
    if (!repoOptions.empty) await repo.commit(files, repoOptions.message ?? 'Initial commit');
    return repo;
  };

  return {
    port,
    baseUrl,
    token: options.token,
    root,
    requests,
    urlFor,
    createRepo,
    close: async () => {
      for (const child of children) child.kill('SIGKILL');
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
