import {
  lbDomainParamSchema,
  lbRouteListResponseSchema,
  lbRouteRequestSchema,
  lbRouteSchema,
  lbRouteUpdateSchema,
} from '@launchbay/contract';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { createLbRoute, deleteLbRoute, getLbRoute, listLbRoutes, updateLbRoute } from './service';

export async function loadBalancerRoutes(app: App, ctx: AppContext) {
  app.get(
    '/lb/routes',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['load-balancer'],
        summary: 'Load-balancer routes by domain, with what the edge last saw of each upstream',
        response: { 200: lbRouteListResponseSchema },
      },
    },
    async () => ({ routes: await listLbRoutes(ctx) }),
  );

  app.get(
    '/lb/routes/:domain',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['load-balancer'],
        summary: 'One load-balancer route',
        params: lbDomainParamSchema,
        response: { 200: lbRouteSchema },
      },
    },
    async (request) => getLbRoute(ctx, request.params.domain),
  );

  app.post(
    '/lb/routes',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['load-balancer'],
        summary: 'Route a domain to a project environment or to upstream addresses (round-robin, health-checked)',
        body: lbRouteRequestSchema,
        response: { 201: lbRouteSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await createLbRoute(ctx, request.body)),
  );

  app.put(
    '/lb/routes/:domain',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['load-balancer'],
        summary: "Change a route's target or health check; the edge applies it without a restart",
        params: lbDomainParamSchema,
        body: lbRouteUpdateSchema,
        response: { 200: lbRouteSchema },
      },
    },
    async (request) => updateLbRoute(ctx, request.params.domain, request.body),
  );

  app.delete(
    '/lb/routes/:domain',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['load-balancer'],
        summary: 'Remove a route; its domain gets the edge’s "no app here" page',
        params: lbDomainParamSchema,
      },
    },
    async (request, reply) => {
      await deleteLbRoute(ctx, request.params.domain);
      return reply.code(204).send();
    },
  );
}
