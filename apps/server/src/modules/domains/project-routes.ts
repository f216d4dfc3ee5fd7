import {
  createCustomDomainRequestSchema,
  createEnvironmentDomainRequestSchema,
  customDomainListResponseSchema,
  customDomainSchema,
  dbIdSchema,
  updateCustomDomainRequestSchema,
} from '@launchbay/contract';
import { z } from 'zod';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { getEnvironmentRow } from '../environments/service';
import { getProjectRow } from '../projects/service';
import { addCustomDomain, listCustomDomains, removeCustomDomain, updateCustomDomain } from './custom-domains';

const TAGS = ['domains'];
const projectParams = z.object({ id: dbIdSchema });
const domainParams = projectParams.extend({ domain_id: dbIdSchema });
const envParams = projectParams.extend({ env_id: dbIdSchema });
const envDomainParams = envParams.extend({ domain_id: dbIdSchema });

/** A project's own domains (spec: custom-domains, and environments/{env_id}/domains). */
export async function projectDomainRoutes(app: App, ctx: AppContext) {
  app.get(
    '/projects/:id/custom-domains',
    {
      schema: {
        tags: TAGS,
        summary: "The project's domains, with the environment each serves and its certificate",
        params: projectParams,
        response: { 200: customDomainListResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      return { domains: await listCustomDomains(ctx, project.id) };
    },
  );

  app.post(
    '/projects/:id/custom-domains',
    {
      schema: {
        tags: TAGS,
        summary: 'Add a domain to an environment (production by default), or as a redirect to another of its domains',
        params: projectParams,
        body: createCustomDomainRequestSchema,
        response: { 201: customDomainSchema },
      },
    },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      return reply.code(201).send(await addCustomDomain(ctx, project.id, request.body));
    },
  );

  app.put(
    '/projects/:id/custom-domains/:domain_id',
    {
      schema: {
        tags: TAGS,
        summary: 'Move a domain to another environment, or make it redirect (or serve again)',
        params: domainParams,
        body: updateCustomDomainRequestSchema,
        response: { 200: customDomainSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      return updateCustomDomain(ctx, project.id, request.params.domain_id, request.body);
    },
  );

  app.delete(
    '/projects/:id/custom-domains/:domain_id',
    { schema: { tags: TAGS, summary: 'Remove a domain from the project', params: domainParams } },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      await removeCustomDomain(ctx, project.id, request.params.domain_id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/projects/:id/environments/:env_id/domains',
    {
      schema: {
        tags: TAGS,
        summary: "An environment's domains",
        params: envParams,
        response: { 200: customDomainListResponseSchema },
      },
    },
    async (request) => {
      const project = await getProjectRow(ctx, request.params.id);
      const environment = await getEnvironmentRow(ctx, project.id, request.params.env_id);
      return { domains: await listCustomDomains(ctx, project.id, environment.id) };
    },
  );

  app.post(
    '/projects/:id/environments/:env_id/domains',
    {
      schema: {
        tags: TAGS,
        summary: 'Add a domain served by this environment',
        params: envParams,
        body: createEnvironmentDomainRequestSchema,
        response: { 201: customDomainSchema },
      },
    },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      const environment = await getEnvironmentRow(ctx, project.id, request.params.env_id);
      return reply
        .code(201)
        .send(await addCustomDomain(ctx, project.id, { domain: request.body.domain, environment_id: environment.id }));
    },
  );

  app.delete(
    '/projects/:id/environments/:env_id/domains/:domain_id',
    { schema: { tags: TAGS, summary: 'Remove a domain from this environment', params: envDomainParams } },
    async (request, reply) => {
      const project = await getProjectRow(ctx, request.params.id);
      const environment = await getEnvironmentRow(ctx, project.id, request.params.env_id);
      await removeCustomDomain(ctx, project.id, request.params.domain_id, environment.id);
      return reply.code(204).send();
    },
  );
}
