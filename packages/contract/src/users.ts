import { z } from 'zod';
import { roleTypeSchema } from './auth';
import { dbIdSchema, emailSchema } from './common';

export const PASSWORD_MIN_LENGTH = 8;

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `Password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(256, 'Password must be at most 256 characters');

export const usernameSchema = z
  .string()
  .trim()
  .min(1, 'Name is required')
  .max(100, 'Name must be at most 100 characters')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'Name must not contain control characters');

export const avatarUrlSchema = z
  .url('Avatar must be a URL')
  .max(2048)
  .refine((value) => /^https?:\/\//.test(value), 'Avatar must be an http(s) URL');

export const userSchema = z.object({
  id: z.number().int(),
  username: z.string(),
  email: z.string(),
  avatar_url: z.string().nullable(),
  roles: z.array(roleTypeSchema),
  mfa_enabled: z.boolean(),
  disabled: z.boolean(),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
});
export type User = z.infer<typeof userSchema>;

export const userListResponseSchema = z.object({ users: z.array(userSchema) });

export const createUserRequestSchema = z.object({
  username: usernameSchema,
  email: emailSchema,
  password: passwordSchema,
  roles: z.array(roleTypeSchema).min(1, 'Choose at least one role').default(['user']),
});
export type CreateUserRequest = z.input<typeof createUserRequestSchema>;

export const updateUserRequestSchema = z
  .object({
    username: usernameSchema.optional(),
    email: emailSchema.optional(),
    password: passwordSchema.optional(),
    disabled: z.boolean().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');
export type UpdateUserRequest = z.infer<typeof updateUserRequestSchema>;

export const updateMeRequestSchema = z
  .object({
    username: usernameSchema.optional(),
    email: emailSchema.optional(),
    avatar_url: avatarUrlSchema.nullable().optional(),
    current_password: z.string().optional(),
    new_password: passwordSchema.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update')
  .refine((body) => !body.new_password || !!body.current_password, {
    message: 'Current password is required to set a new one',
    path: ['current_password'],
  })
  // Whoever holds a session (a borrowed laptop, a stolen cookie) must not take over the account
  // by moving its email: send `email` only to change it, with the current password.
  .refine((body) => body.email === undefined || !!body.current_password, {
    message: 'Current password is required to change your email',
    path: ['current_password'],
  });
export type UpdateMeRequest = z.infer<typeof updateMeRequestSchema>;

export const userIdParamSchema = z.object({ user_id: dbIdSchema });
export const roleParamSchema = z.object({
  user_id: dbIdSchema,
  role_type: roleTypeSchema,
});
export const addRoleRequestSchema = z.object({ role_type: roleTypeSchema });
