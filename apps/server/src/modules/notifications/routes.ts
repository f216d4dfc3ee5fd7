import {
  createEmailProviderRequestSchema,
  createSlackProviderRequestSchema,
  type EmailProvider,
  emailProviderSchema,
  idParamSchema,
  messageSchema,
  notificationListQuerySchema,
  notificationListResponseSchema,
  notificationPreferencesSchema,
  notificationProviderListResponseSchema,
  notificationProviderSchema,
  type SlackProvider,
  slackProviderSchema,
  TEST_NOTIFICATION_SENT_MESSAGE,
  updateEmailProviderRequestSchema,
  updateNotificationPreferencesRequestSchema,
  updateProviderRequestSchema,
  updateSlackProviderRequestSchema,
} from '@launchbay/contract';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context';
import type { App } from '../../lib/http';
import { sendTestNotification } from './dispatcher';
import { listNotifications } from './history';
import { getNotificationPreferences, updateNotificationPreferences } from './preferences';
import {
  createProvider,
  deleteProvider,
  listProviders,
  requireProvider,
  type SavedBy,
  toProviderDto,
  updateProvider,
} from './providers';

/** An admin's save makes a provider trusted with private and loopback addresses; anyone else's does not. */
const savedBy = (request: FastifyRequest): SavedBy => ({ admin: request.principal?.roles.includes('admin') ?? false });

/**
 * Alert preferences, notification providers and the notification record. Anyone signed in reads
 * (secrets masked); changing preferences or providers, and sending a test, needs the user role.
 */
export async function notificationRoutes(app: App, ctx: AppContext) {
  app.get(
    '/notification-preferences',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['notifications'],
        summary: 'Alert preferences (defaults until saved)',
        response: { 200: notificationPreferencesSchema },
      },
    },
    async () => getNotificationPreferences(ctx),
  );

  app.put(
    '/notification-preferences',
    {
      config: { access: 'user' },
      schema: {
        tags: ['notifications'],
        summary: 'Save the whole preferences object',
        body: updateNotificationPreferencesRequestSchema,
        response: { 200: notificationPreferencesSchema },
      },
    },
    async (request) => updateNotificationPreferences(ctx, request.body.preferences, request.principal?.userId ?? null),
  );

  app.get(
    '/notification-providers',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['notifications'],
        summary: 'Notification providers (passwords and webhook paths masked)',
        response: { 200: notificationProviderListResponseSchema },
      },
    },
    async () => listProviders(ctx),
  );

  app.post(
    '/notification-providers/email',
    {
      config: { access: 'user' },
      schema: {
        tags: ['notifications'],
        summary: 'Add an email (SMTP) provider',
        body: createEmailProviderRequestSchema,
        response: { 201: emailProviderSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send((await createProvider(ctx, 'email', request.body, savedBy(request))) as EmailProvider),
  );

  app.post(
    '/notification-providers/slack',
    {
      config: { access: 'user' },
      schema: {
        tags: ['notifications'],
        summary: 'Add a Slack (incoming webhook) provider',
        body: createSlackProviderRequestSchema,
        response: { 201: slackProviderSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send((await createProvider(ctx, 'slack', request.body, savedBy(request))) as SlackProvider),
  );

  app.put(
    '/notification-providers/email/:id',
    {
      config: { access: 'user' },
      schema: {
        tags: ['notifications'],
        summary:
          'Update an email provider; a password sent back masked keeps the stored one while host, port, username and TLS mode are unchanged (otherwise 400: enter it again)',
        params: idParamSchema,
        body: updateEmailProviderRequestSchema,
        response: { 200: emailProviderSchema },
      },
    },
    async (request) => (await updateProvider(ctx, request.params.id, request.body, savedBy(request), 'email')) as EmailProvider,
  );

  app.put(
    '/notification-providers/slack/:id',
    {
      config: { access: 'user' },
      schema: {
        tags: ['notifications'],
        summary:
          'Update a Slack provider; a webhook URL sent back masked keeps the stored one while its scheme and host are unchanged (otherwise 400: enter it again)',
        params: idParamSchema,
        body: updateSlackProviderRequestSchema,
        response: { 200: slackProviderSchema },
      },
    },
    async (request) => (await updateProvider(ctx, request.params.id, request.body, savedBy(request), 'slack')) as SlackProvider,
  );

  app.get(
    '/notification-providers/:id',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['notifications'],
        summary: 'One notification provider',
        params: idParamSchema,
        response: { 200: notificationProviderSchema },
      },
    },
    async (request) => toProviderDto(ctx, await requireProvider(ctx, request.params.id)),
  );

  app.put(
    '/notification-providers/:id',
    {
      config: { access: 'user' },
      schema: {
        tags: ['notifications'],
        summary: "Update a provider of either type; the config is checked against the provider's type",
        params: idParamSchema,
        body: updateProviderRequestSchema,
        response: { 200: notificationProviderSchema },
      },
    },
    async (request) => updateProvider(ctx, request.params.id, request.body, savedBy(request)),
  );

  app.delete(
    '/notification-providers/:id',
    {
      config: { access: 'user' },
      schema: { tags: ['notifications'], summary: 'Delete a provider (answers 204)', params: idParamSchema },
    },
    async (request, reply) => {
      await deleteProvider(ctx, request.params.id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/notification-providers/:id/test',
    {
      // Outside a request transaction: the send is network I/O, and a failed send's record must stay.
      config: { access: 'user', transaction: false },
      schema: {
        tags: ['notifications'],
        summary:
          'Send a test notification now; 400 when the receiving server refused or the address is not allowed (fix the settings), 502 when it could not be reached. The detail says what failed (an HTTP status, an SMTP reply code), never what the server answered',
        params: idParamSchema,
        response: { 200: messageSchema },
      },
    },
    async (request) => {
      await sendTestNotification(ctx, request.params.id);
      return { message: TEST_NOTIFICATION_SENT_MESSAGE };
    },
  );

  app.get(
    '/notifications',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['notifications'],
        summary: 'Recent notifications, newest first, with each delivery and its outcome',
        querystring: notificationListQuerySchema,
        response: { 200: notificationListResponseSchema },
      },
    },
    async (request) => listNotifications(ctx, request.query),
  );
}
