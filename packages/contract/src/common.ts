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

/** The largest value of PostgreSQL's integer, the type of every id the platform makes. */
export const PG_INTEGER_MAX = 2_147_483_647;

/** A database id in a path: digits only (no '0x1' or '1e3'), within PostgreSQL's integer range. */
export const dbIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,9}$/, 'Must be a positive whole number')
  .transform(Number)
  .pipe(z.number().max(PG_INTEGER_MAX, 'Must be a positive whole number'));

export const idParamSchema = z.object({ id: dbIdSchema });

/** Every email the platform stores: a valid address of at most 254 characters (RFC 5321). */
export const emailSchema = z.email('Please enter a valid email address').max(254, 'Email must be at most 254 characters');

export const messageSchema = z.object({ message: z.string() });

export const PRODUCT_NAME = 'Launchbay';
export const VERSION_LABEL = 'v1.0.0';

// NUL cannot be stored in PostgreSQL text or jsonb, and a lone UTF-16 surrogate is not text at all
// (jsonb refuses it): both are refused at validation, for every route, so no change can succeed
// while its audit row fails.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding NUL is the point
const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSAFE_TEXT_MESSAGE = 'Must not contain NUL characters or unpaired surrogates (invalid Unicode)';

/** The path ('config.to_addresses.0') of the first string, or object key, holding unsafe text; undefined when clean. */
export function findUnsafeText(value: unknown, path: string[] = [], depth = 0): string[] | undefined {
  if (typeof value === 'string') return UNSAFE_TEXT.test(value) ? path : undefined;
  if (depth > 32 || value === null || typeof value !== 'object') return undefined;
  // A request body that is a stream (a git push) or bytes is not text: its object graph is not walked.
  if (typeof (value as { pipe?: unknown }).pipe === 'function' || ArrayBuffer.isView(value)) return undefined;
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  for (const [key, item] of entries) {
    if (UNSAFE_TEXT.test(key)) return [...path, key.replace(UNSAFE_TEXT, '?')];
    const found = findUnsafeText(item, [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}
