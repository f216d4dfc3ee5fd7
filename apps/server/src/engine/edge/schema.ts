import { sql } from 'drizzle-orm';
import { bigint, check, integer, jsonb, pgTable } from 'drizzle-orm/pg-core';

/**
 * The edge's route table as the one-row relation it loads (packages/edge-protocol
 * ROUTE_TABLE_RELATION): `version` grows with every change, `routes` holds the whole table.
 */
export const edgeRouteTable = pgTable(
  'edge_route_table',
  {
    id: integer('id').primaryKey().default(1),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
    routes: jsonb('routes').$type<unknown[]>().notNull().default([]),
    /** TLS certificates the edge serves by name (files it loads), and HTTP-01 answers it gives. */
    certificates: jsonb('certificates').$type<unknown[]>().notNull().default([]),
    challenges: jsonb('challenges').$type<unknown[]>().notNull().default([]),
  },
  (t) => [check('edge_route_table_single_row', sql`${t.id} = 1`)],
);
