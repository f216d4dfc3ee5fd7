import {
  addRoleRequestSchema,
  createUserRequestSchema,
  currentUserSchema,
  mfaCodeRequestSchema,
  mfaSetupResponseSchema,
  mfaVerifyResponseSchema,
  roleParamSchema,
  updateMeRequestSchema,
  updateUserRequestSchema,
  userIdParamSchema,
  userListResponseSchema,
  userSchema,
} from '@launchbay/contract';
import type { AppContext } from '../../context';
import { unauthorized } from '../../lib/errors';
import type { App, Principal } from '../../lib/http';
import { confirmMfa, disableMfa, setupMfa } from '../auth/service';
import { addRole, createUser, deleteUser, getUser, listUsers, removeRole, updateMe, updateUser } from './service';

const me = (principal: Principal | null): Principal => {
  if (!principal) throw unauthorized();
  return principal;
};

export async function userRoutes(app: App, ctx: AppContext) {
  // The signed-in user's own account: every role may manage itself.
  app.patch(
    '/users/me',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['users'],
        summary: 'Update your name, email, avatar or password',
        body: updateMeRequestSchema,
        response: { 200: currentUserSchema },
      },
    },
    async (request) => updateMe(ctx, me(request.principal), request.body),
  );

  app.post(
    '/users/me/mfa/setup',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['users'],
        summary: 'Start two-factor setup: a new secret and its QR code',
        response: { 200: mfaSetupResponseSchema },
      },
    },
    async (request) => setupMfa(ctx, me(request.principal)),
  );

  app.post(
    '/users/me/mfa/verify',
    {
      config: { access: 'reader' },
      schema: {
        tags: ['users'],
        summary: 'Confirm setup with a code; turns MFA on and returns one-time recovery codes',
        body: mfaCodeRequestSchema,
        response: { 200: mfaVerifyResponseSchema },
      },
    },
    async (request) => confirmMfa(ctx, me(request.principal), request.body.code),
  );

  app.delete(
    '/users/me/mfa',
    {
      config: { access: 'reader' },
      schema: { tags: ['users'], summary: 'Turn MFA off (needs a current code; answers 204)', body: mfaCodeRequestSchema },
    },
    async (request, reply) => {
      await disableMfa(ctx, me(request.principal), request.body.code);
      return reply.code(204).send();
    },
  );

  app.get(
    '/users',
    {
      config: { access: 'admin' },
      schema: { tags: ['users'], summary: 'List users', response: { 200: userListResponseSchema } },
    },
    async () => ({ users: await listUsers(ctx.db) }),
  );

  app.post(
    '/users',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['users'],
        summary: 'Create a user with a first password',
        body: createUserRequestSchema,
        response: { 201: userSchema },
      },
    },
    async (request, reply) => reply.code(201).send(await createUser(ctx.db, request.body)),
  );

  app.patch(
    '/users/:user_id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['users'],
        summary: 'Update, disable or enable a user, or set a new password',
        params: userIdParamSchema,
        body: updateUserRequestSchema,
        response: { 200: userSchema },
      },
    },
    async (request) => updateUser(ctx, request.params.user_id, request.body),
  );

  app.delete(
    '/users/:user_id',
    {
      config: { access: 'admin' },
      schema: { tags: ['users'], summary: 'Delete a user (answers 204)', params: userIdParamSchema },
    },
    async (request, reply) => {
      await deleteUser(ctx, me(request.principal), request.params.user_id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/users/:user_id',
    {
      config: { access: 'admin' },
      schema: { tags: ['users'], summary: 'One user', params: userIdParamSchema, response: { 200: userSchema } },
    },
    async (request) => getUser(ctx.db, request.params.user_id),
  );

  app.post(
    '/users/:user_id/roles',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['users'],
        summary: 'Give a user a role',
        params: userIdParamSchema,
        body: addRoleRequestSchema,
        response: { 200: userSchema },
      },
    },
    async (request) => addRole(ctx, request.params.user_id, request.body.role_type),
  );

  app.delete(
    '/users/:user_id/roles/:role_type',
    {
      config: { access: 'admin' },
      schema: { tags: ['users'], summary: 'Take a role from a user', params: roleParamSchema, response: { 200: userSchema } },
    },
    async (request) => removeRole(ctx, request.params.user_id, request.params.role_type),
  );
}
