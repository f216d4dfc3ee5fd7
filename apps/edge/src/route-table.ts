import { EMPTY_ROUTE_TABLE, type Route, type RouteTable } from '@launchbay/edge-protocol';

/**
 * The table the edge serves from: swapped whole on every change, so a request never sees half a
 * change, and kept as it is while the database is away. A request looks its route up once, when it
 * arrives, and keeps it: a request in flight finishes where it started, whatever changes meanwhile.
 */
export class RouteTableHolder {
  #table: RouteTable = EMPTY_ROUTE_TABLE;
  #byHost = new Map<string, Route[]>();
  #listeners = new Set<(table: RouteTable) => void>();

  get table(): RouteTable {
    return this.#table;
  }

  replace(table: RouteTable): void {
    const byHost = new Map<string, Route[]>();
    for (const route of table.routes) byHost.set(route.host, [...(byHost.get(route.host) ?? []), route]);
    // Longest prefix first, so the first match is the most specific one.
    for (const routes of byHost.values()) routes.sort((a, b) => b.pathPrefix.length - a.pathPrefix.length);
    this.#table = table;
    this.#byHost = byHost;
    for (const listener of this.#listeners) listener(table);
  }

  /** Called after every replace (the proxy lets go of upstreams no route names any more). */
  onChange(listener: (table: RouteTable) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  match(host: string, path: string): Route | undefined {
    return this.#byHost
      .get(host)
      ?.find(
        (route) =>
          route.pathPrefix === '/' ||
          path === route.pathPrefix ||
          path.startsWith(route.pathPrefix.endsWith('/') ? route.pathPrefix : `${route.pathPrefix}/`),
      );
  }
}
