import {
  createDomainRequestSchema,
  domainListResponseSchema,
  domainOrderSchema,
  domainRefParamSchema,
  domainSchema,
  httpChallengeDebugSchema,
} from '@launchbay/contract';
import type { AppContext } from '../../context';
import { badRequest } from '../../lib/errors';
import type { App } from '../../lib/http';
import { httpChallengeDebug } from './challenge-debug';
import { enqueueCertificate } from './jobs';
import {
  createDomain,
  createDomainOrder,
  deleteDomain,
  deleteDomainOrder,
  domainDto,
  finalizeDomainOrder,
  getDomainRow,
  listDomains,
  markProvisioning,
  readDomainOrder,
} from './service';

const TAGS = ['domains'];
/** Every call takes the domain by its id or by its name (`/domains/7` or `/domains/shop.example.com`). */
const params = domainRefParamSchema;

export async function domainRoutes(app: App, ctx: AppContext) {
  app.get(
    '/domains',
    {
      config: { access: 'reader' },
      schema: { tags: TAGS, summary: 'Domains and their certificates', response: { 200: domainListResponseSchema } },
    },
    async () => ({ domains: await listDomains(ctx) }),
  );

  app.post(
    '/domains',
    {
      config: { access: 'admin' },
      schema: {
        tags: TAGS,
        summary: 'Add a domain (exact, or a wildcard validated with DNS-01)',
        body: createDomainRequestSchema,
        response: { 201: domainSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await createDomain(ctx, request.body.domain)),
  );

  app.get(
    '/domains/:domain',
    {
      config: { access: 'reader' },
      schema: { tags: TAGS, summary: 'One domain, with its DNS records and order', params, response: { 200: domainSchema } },
    },
    async (request) => domainDto(ctx, await getDomainRow(ctx, request.params.domain)),
  );

  app.delete(
    '/domains/:domain',
    {
      // Talks to the CA and republishes the edge's table: not one database transaction.
      config: { access: 'admin', transaction: false },
      schema: { tags: TAGS, summary: 'Remove a domain and stop serving its certificate', params },
    },
    async (request, reply) => {
      await deleteDomain(ctx, await getDomainRow(ctx, request.params.domain));
      return reply.code(204).send();
    },
  );

  app.post(
    '/domains/:domain/provision',
    {
      config: { access: 'admin' },
      schema: {
        tags: TAGS,
        summary: 'Get a certificate: HTTP-01 all the way through the edge; DNS-01 up to the TXT record to create',
        params,
        response: { 202: domainSchema },
      },
    },
    async (request, reply) => {
      const row = await getDomainRow(ctx, request.params.domain);
      await enqueueCertificate(ctx, row.id, 'provision');
      await markProvisioning(ctx, row);
      return reply.code(202).send(await domainDto(ctx, await getDomainRow(ctx, row.id)));
    },
  );

  app.post(
    '/domains/:domain/renew',
    {
      config: { access: 'admin' },
      schema: { tags: TAGS, summary: 'Renew the certificate now', params, response: { 202: domainSchema } },
    },
    async (request, reply) => {
      const row = await getDomainRow(ctx, request.params.domain);
      if (!row.fingerprint) throw badRequest(`${row.domain} has no certificate to renew yet: provision it first`);
      await enqueueCertificate(ctx, row.id, 'renew');
      return reply.code(202).send(await domainDto(ctx, row));
    },
  );

  app.get(
    '/domains/:domain/http-challenge-debug',
    {
      config: { access: 'reader' },
      schema: {
        tags: TAGS,
        summary: 'Why an HTTP-01 validation would fail: DNS, port 80, the token',
        params,
        response: { 200: httpChallengeDebugSchema },
      },
    },
    async (request) => httpChallengeDebug(ctx, await getDomainRow(ctx, request.params.domain)),
  );

  app.get(
    '/domains/:domain/order',
    {
      config: { access: 'reader' },
      schema: {
        tags: TAGS,
        summary: 'The order in progress, as the CA sees it now',
        params,
        response: { 200: domainOrderSchema },
      },
    },
    async (request) => readDomainOrder(ctx, await getDomainRow(ctx, request.params.domain)),
  );

  app.post(
    '/domains/:domain/order',
    {
      config: { access: 'admin', transaction: false },
      schema: {
        tags: TAGS,
        summary: 'Create an ACME order (replacing one in progress); HTTP-01 tokens go to the edge at once',
        params,
        response: { 201: domainOrderSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await createDomainOrder(ctx, await getDomainRow(ctx, request.params.domain))),
  );

  app.post(
    '/domains/:domain/order/finalize',
    {
      config: { access: 'admin', transaction: false },
      schema: {
        tags: TAGS,
        summary: 'Have the CA validate the challenges (DNS-01: the TXT record is checked first), then get the certificate',
        params,
        response: { 200: domainSchema },
      },
    },
    async (request) => finalizeDomainOrder(ctx, await getDomainRow(ctx, request.params.domain)),
  );

  app.delete(
    '/domains/:domain/order',
    {
      config: { access: 'admin', transaction: false },
      schema: { tags: TAGS, summary: 'Abandon the order in progress', params },
    },
    async (request, reply) => {
      await deleteDomainOrder(ctx, await getDomainRow(ctx, request.params.domain));
      return reply.code(204).send();
    },
  );
}
