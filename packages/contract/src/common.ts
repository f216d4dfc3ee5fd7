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

export const idParamSchema = z.object({ id: z.coerce.number().int().positive() });

export const messageSchema = z.object({ message: z.string() });

export const PRODUCT_NAME = 'Launchbay';
export const VERSION_LABEL = 'v1.0.0';
