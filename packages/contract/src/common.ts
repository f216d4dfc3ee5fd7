import { z } from 'zod';

/** The body every failed /api call answers with (DESIGN.md: validation rule). */
export const apiErrorSchema = z.object({
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  retry_after: z.number().int().optional(),
});
export type ApiError = z.infer<typeof apiErrorSchema>;

export const paginationQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(20),
});

/** A database id in a path: digits only (no '0x1' or '1e3'), within PostgreSQL's integer range. */
export const dbIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, 'Must be a positive whole number')
  .transform(Number)
  .pipe(z.number().max(2_147_483_647, 'Must be a positive whole number'));

export const idParamSchema = z.object({ id: dbIdSchema });

/** Every email the platform stores: a valid address of at most 254 characters (RFC 5321). */
export const emailSchema = z.email('Please enter a valid email address').max(254, 'Email must be at most 254 characters');

export const messageSchema = z.object({ message: z.string() });

export const PRODUCT_NAME = 'Launchbay';
export const VERSION_LABEL = 'v1.0.0';
