import type pg from 'pg';

/**
 * A project with its environments, written straight into the database: for tests of the areas
 * under a project that need no deployment (env vars, environments).
 */
export async function insertProject(
  pool: pg.Pool,
  options: { name: string; slug: string; environments?: string[] },
): Promise<{ id: number; environments: Record<string, number> }> {
  const { rows } = await pool.query<{ id: number }>(
    "INSERT INTO projects (name, slug, git_url, branch) VALUES ($1, $2, 'https://git.example.com/o/r.git', 'main') RETURNING id",
    [options.name, options.slug],
  );
  const id = rows[0]?.id ?? 0;
  const environments: Record<string, number> = {};
  for (const name of ['production', ...(options.environments ?? [])]) {
    const env = await pool.query<{ id: number }>(
      'INSERT INTO environments (project_id, name, slug, branch, is_production) VALUES ($1, $2, $2, $3, $4) RETURNING id',
      [id, name, name === 'production' ? 'main' : name, name === 'production'],
    );
    environments[name] = env.rows[0]?.id ?? 0;
  }
  return { id, environments };
}
