import { EMPTY_ROUTE_TABLE, type Route, type RouteTable } from '@launchbay/edge-protocol';

/**
 * The table the edge serves from: swapped whole on every change, so a request never sees half a
 * change, and kept as it is while the database is away.
 */
export class RouteTableHolder {
  #table: RouteTable = EMPTY_ROUTE_TABLE;
  #byHost = new Map<string, Route[]>();

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
