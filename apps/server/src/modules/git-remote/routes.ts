import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context';
import { gitRemoteRoot } from '../../engine/pipeline/local-remote';
import type { App, Principal } from '../../lib/http';
import { ROLE_LEVEL, roleLevel } from '../../lib/http';
import { recordAuditEvent } from '../audit/service';
import { getProjectBySlug } from '../projects/service';
import { deployPush, ensureProjectRepo, issuePushToken, redeemPushToken } from './service';

const GIT_CONTENT_TYPES = ['application/x-git-upload-pack-request', 'application/x-git-receive-pack-request'];
const REALM = 'Basic realm="Launchbay", charset="UTF-8"';

function refuse(reply: FastifyReply, status: number, message: string) {
  if (status === 401) reply.header('www-authenticate', REALM);
  return reply.code(status).type('text/plain; charset=utf-8').send(`${message}\n`);
}

/** The API key (or a session token) sent as the HTTP Basic password, as git sends credentials. */
function basicPassword(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : null;
}

function hookUrl(request: FastifyRequest): string {
  const socket = request.raw.socket;
  const address = socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') && !address.startsWith('::ffff:') ? `[${address}]` : address.replace(/^::ffff:/, '');
  return `http://${host}:${socket.localPort}/git/_hook`;
}

/**
 * Runs `git http-backend` (git's own smart-HTTP server, as a CGI program) for one request and
 * streams its answer: upload-pack for clones and fetches, receive-pack for pushes.
 */
function runHttpBackend(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { repo: string; pathInfo: string; principal: Principal; extraEnv: Record<string, string> },
) {
  reply.hijack();
  const raw = reply.raw;
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: gitRemoteRoot(ctx.config.dataDir),
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      PATH_INFO: `/${options.repo}${options.pathInfo}`,
      REQUEST_METHOD: request.method,
      QUERY_STRING: request.url.split('?')[1] ?? '',
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      ...(request.headers['content-length'] ? { CONTENT_LENGTH: request.headers['content-length'] } : {}),
      ...(request.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: request.headers['content-encoding'] } : {}),
      ...(request.headers['git-protocol'] ? { GIT_PROTOCOL: String(request.headers['git-protocol']) } : {}),
      REMOTE_USER: options.principal.email,
      REMOTE_ADDR: request.ip,
      GATEWAY_INTERFACE: 'CGI/1.1',
      ...options.extraEnv,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const body = request.body as IncomingMessage | undefined;
  if (body && typeof body.pipe === 'function') body.pipe(child.stdin);
  else child.stdin.end();
  child.stdin.on('error', () => undefined); // the backend may answer before reading everything (an error)

  let head = Buffer.alloc(0);
  let headersSent = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      raw.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n') >= 0 ? head.indexOf('\r\n\r\n') : head.indexOf('\n\n');
    if (end < 0) return;
    const separator = head.indexOf('\r\n\r\n') === end ? 4 : 2;
    const headers: Record<string, string> = {};
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'status') status = Number.parseInt(value, 10) || 500;
      else headers[name] = value;
    }
    raw.writeHead(status, headers);
    headersSent = true;
    const rest = head.subarray(end + separator);
    if (rest.length > 0) raw.write(rest);
  });
  child.on('close', (code) => {
    if (!headersSent) {
      request.log.warn(`git http-backend ended (${code}) without an answer: ${stderr.trim()}`);
      raw.writeHead(500, { 'content-type': 'text/plain' });
      raw.end('The git backend failed\n');
      return;
    }
    raw.end();
  });
  child.on('error', (error) => {
    request.log.error(`git http-backend could not start: ${error.message}`);
    if (!headersSent) {
      raw.writeHead(500, { 'content-type': 'text/plain' });
      raw.end('git is not installed on the platform\n');
    }
  });
}

/** `/git/{slug}.git/...`: the platform's own git remote (see service.ts). Outside /api: git is the client. */
export async function gitRemoteRoutes(app: App, ctx: AppContext) {
  app.addContentTypeParser(GIT_CONTENT_TYPES, (_request, payload, done) => done(null, payload));

  const serve = async (request: FastifyRequest<{ Params: { repo: string } }>, reply: FastifyReply, pathInfo: string) => {
    const slug = request.params.repo.replace(/\.git$/, '');
    const push =
      pathInfo === '/git-receive-pack' ||
      (pathInfo === '/info/refs' && (request.query as { service?: string }).service === 'git-receive-pack');
    const password = basicPassword(request);
    if (!password) return refuse(reply, 401, 'Authentication required: use an API key (lb_...) as the password');
    const { principal } = await ctx.principals.resolve(password, request);
    if (!principal) return refuse(reply, 401, 'The API key was refused: it is unknown, revoked or expired');
    const needed = push ? 'deployments:write' : 'projects:read';
    if (principal.apiKey && !principal.apiKey.permissions.includes(needed)) {
      return refuse(reply, 403, `This API key lacks the ${needed} permission`);
    }
    if (push && roleLevel(principal.roles) < ROLE_LEVEL.user) {
      return refuse(reply, 403, 'Your role is read-only: you need the user role to push');
    }
    const project = await getProjectBySlug(ctx, slug).catch(() => null);
    if (!project) return refuse(reply, 404, `No project with the slug ${slug}`);
    await ensureProjectRepo(ctx, project);
    const extraEnv: Record<string, string> = {};
    if (pathInfo === '/git-receive-pack') {
      extraEnv.LAUNCHBAY_NODE = process.execPath;
      extraEnv.LAUNCHBAY_HOOK_URL = hookUrl(request);
      extraEnv.LAUNCHBAY_PUSH_TOKEN = issuePushToken(project, principal);
      await recordAuditEvent(ctx.db, {
        actorType: principal.apiKey ? 'api_key' : 'user',
        actorUserId: principal.userId,
        actorApiKeyId: principal.apiKey?.id ?? null,
        actorLabel: principal.apiKey ? `${principal.email} (key ${principal.apiKey.name})` : principal.email,
        action: 'projects.git.push',
        targetType: 'project',
        targetId: String(project.id),
        summary: { project: project.slug },
        statusCode: 200,
        method: 'POST',
        path: request.url.split('?')[0] ?? '',
        ip: request.ip,
        userAgent: request.headers['user-agent'] ?? null,
      });
    }
    runHttpBackend(ctx, request, reply, { repo: `${project.id}.git`, pathInfo, principal, extraEnv });
  };

  app.get<{ Params: { repo: string } }>('/:repo/info/refs', (request, reply) => serve(request, reply, '/info/refs'));
  app.post<{ Params: { repo: string } }>('/:repo/git-upload-pack', (request, reply) => serve(request, reply, '/git-upload-pack'));
  app.post<{ Params: { repo: string } }>('/:repo/git-receive-pack', (request, reply) =>
    serve(request, reply, '/git-receive-pack'),
  );

  // The post-receive hook of a push calls back here with the refs it stored, from this machine only.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: 1024 * 1024 }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/_hook', async (request, reply) => {
    const push = redeemPushToken(request.headers['x-launchbay-push-token'] as string | undefined);
    if (!push) return refuse(reply, 403, 'Unknown push');
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    const write = (line: string) => raw.write(`${line}\n`);
    try {
      await deployPush(ctx, push, String(request.body ?? ''), write);
    } catch (error) {
      write(`Launchbay could not deploy this push: ${(error as Error).message}`);
    }
    raw.end();
  });
}
