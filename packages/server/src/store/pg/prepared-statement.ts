import type pg from 'pg';

/**
 * A statement prepared once per connection under `name` (node-postgres), so that PostgreSQL parses and
 * plans it once, not at every write of a partition (most batches of a steady feed hold one row). Only
 * statements whose result columns are fixed: a migration adding a column cannot change their result.
 */
export function prepared(name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  return (values) => ({ name: `eql_${name}`, text, values });
}
