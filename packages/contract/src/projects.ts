import { z } from 'zod';

export const projectSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  slug: z.string(),
  created_at: z.string(),
});
export type Project = z.infer<typeof projectSchema>;

export const projectListResponseSchema = z.object({
  projects: z.array(projectSchema),
  total: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
});
export type ProjectListResponse = z.infer<typeof projectListResponseSchema>;
