import { z } from 'zod';
import { roleTypeSchema } from './auth';

/** The areas an API key can be given read or write access to. */
export const PERMISSION_AREAS = [
  'projects',
  'deployments',
  'domains',
  'env_vars',
  'services',
  'backups',
  'monitors',
  'analytics',
  'errors',
  'notifications',
  'git',
  'load_balancer',
  'users',
  'api_keys',
  'settings',
  'audit',
  'platform',
] as const;
export type PermissionArea = (typeof PERMISSION_AREAS)[number];
export const PERMISSIONS = PERMISSION_AREAS.flatMap((area) => [`${area}:read`, `${area}:write`] as const);
export type Permission = `${PermissionArea}:${'read' | 'write'}`;
export const permissionSchema = z.enum(PERMISSIONS as unknown as [Permission, ...Permission[]]);

/** Every secret starts with this, so secret scanners and people recognise a leaked one. */
export const API_KEY_PREFIX = 'lb_';

export const permissionListResponseSchema = z.object({
  permissions: z.array(
    z.object({ name: permissionSchema, area: z.string(), access: z.enum(['read', 'write']), description: z.string() }),
  ),
  presets: z.array(z.object({ role: roleTypeSchema, label: z.string(), permissions: z.array(permissionSchema) })),
});

export const apiKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  key_prefix: z.string().describe('The first characters of the secret, to recognise it'),
  permissions: z.array(permissionSchema),
  is_active: z.boolean(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  last_used_ip: z.string().nullable(),
  user_id: z.number().int(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;

export const apiKeyListResponseSchema = z.object({ api_keys: z.array(apiKeySchema) });

const apiKeyNameSchema = z.string().trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters');
const expiresAtSchema = z.iso
  .datetime({ offset: true, message: 'Expiry must be a date and time' })
  .refine((value) => new Date(value).getTime() > Date.now(), 'Expiry must be in the future')
  .nullable();

export const createApiKeyRequestSchema = z.object({
  name: apiKeyNameSchema,
  permissions: z.array(permissionSchema).min(1, 'Choose at least one permission'),
  expires_at: expiresAtSchema.default(null),
});
export type CreateApiKeyRequest = z.input<typeof createApiKeyRequestSchema>;

export const createApiKeyResponseSchema = apiKeySchema.extend({
  secret: z.string().describe('Shown only in this response: store it now'),
});

export const updateApiKeyRequestSchema = z
  .object({
    name: apiKeyNameSchema.optional(),
    permissions: z.array(permissionSchema).min(1, 'Choose at least one permission').optional(),
    expires_at: expiresAtSchema.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'Nothing to update');
