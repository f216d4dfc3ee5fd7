/**
 * The equality filters of a row as tokens (`h:` host, `i:` client IP, `p:` project, `e:`
 * environment, `c:` status class, `s:` status), indexed by one GIN index: a filter, or several at
 * once, is `tokens @> ARRAY[...]`. One GIN insert (appended to its pending list, merged in bulk)
 * costs the edge's writes far less than a b-tree per filter did, and the planner still reads the
 * time index for a common value and the GIN index for a rare one. `column` prefixes the columns
 * (a table alias); the expression must stay the same everywhere for the index to be used.
 */
export function proxyLogFilterTokens(column = ''): string {
  return `(ARRAY['h:' || ${column}host, 'i:' || ${column}client_ip, 'p:' || coalesce(${column}project_id::text, '-'), 'e:' || coalesce(${column}environment_id::text, '-'), 'c:' || ${column}status_class::text, 's:' || ${column}status::text])`;
}
