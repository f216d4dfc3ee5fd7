/**
 * The baseline for GET /api/user/me: a bare Fastify route answering the same JSON body, with no
 * plugins, hooks or database. The platform's route is measured against it in the same run, so the
 * ratio says what the platform's own work per request costs on this machine today.
 * With a third argument (a JSON object of headers) it also sends those headers on every answer: the
 * platform's own security and caching headers, so that second baseline leaves only the platform's
 * work per request as the difference.
 * Usage: node bench/.out/bare-fastify.mjs PORT 'JSON body' ['JSON headers']
 */
import Fastify from 'fastify';

const [port = '0', body = '{}', headersJson] = process.argv.slice(2);
const answer = JSON.parse(body) as unknown;
const headers = headersJson ? (JSON.parse(headersJson) as Record<string, string>) : null;
const app = Fastify({ logger: false });
if (headers) {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
app.get('/api/user/me', async () => answer);
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.send?.('ready');
