/**
 * The baseline for GET /api/user/me: a bare Fastify route answering the same JSON body, with no
 * plugins, hooks or database. The platform's route is measured against it in the same run, so the
 * ratio says what the platform's own work per request costs on this machine today.
 * Usage: node bench/.out/bare-fastify.mjs PORT 'JSON body'
 */
import Fastify from 'fastify';

const [port = '0', body = '{}'] = process.argv.slice(2);
const answer = JSON.parse(body) as unknown;
const app = Fastify({ logger: false });
app.get('/api/user/me', async () => answer);
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.send?.('ready');
