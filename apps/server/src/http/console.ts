import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { App } from '../lib/http';
import { sendError } from './errors';

/** The built console (a single-page app) and every path that is not an API route. */

/** The server package's folder, found upwards from this file: the same answer from src/ and from the bundle in dist/. */
function serverPackageDirectory(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

export function consoleDirectory(configured: string | undefined): string | undefined {
  const dir = configured ?? path.resolve(serverPackageDirectory(), '..', 'console', 'dist');
  return fs.existsSync(path.join(dir, 'index.html')) ? dir : undefined;
}

export async function registerConsole(app: App, consoleDir: string | undefined) {
  if (consoleDir) {
    await app.register(fastifyStatic, {
      root: consoleDir,
      wildcard: false,
      index: false,
      setHeaders(res, filePath) {
        // Hashed assets never change; index.html must always be fresh to pick up a new build.
        res.header(
          'cache-control',
          filePath.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const url = request.url.split('?')[0] ?? '/';
    if (url === '/api' || url.startsWith('/api/')) {
      return sendError(reply, 404, { detail: `No API route ${request.method} ${url}` });
    }
    // A missing file (an old hashed asset after an upgrade) is a 404, never index.html served as script.
    const looksLikeFile = url.startsWith('/assets/') || /\.[a-z0-9]{1,8}$/i.test(url);
    if (consoleDir && !looksLikeFile && (request.method === 'GET' || request.method === 'HEAD')) {
      // The console is a single-page app: every other path is one of its routes.
      return reply.header('cache-control', 'no-cache').sendFile('index.html', consoleDir);
    }
    return sendError(reply, 404, {
      detail: consoleDir ? 'Not found' : 'Not found (the console is not built: run npm run build)',
    });
  });
}
