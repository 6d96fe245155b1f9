import type { FastifySchema } from 'fastify';
import FindMyWay from 'find-my-way';

/** A route as registered: its method, its URL pattern (`/carriers/:carrierId/services`) and its schema. */
export interface RegisteredRoute {
  method: string;
  url: string;
  schema?: FastifySchema & { hide?: boolean };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered on the app (HEAD twins of GET routes included). */
    registeredRoutes(): RegisteredRoute[];
  }
}

/**
 * Remembers every registered route so that a request for a known path with the wrong method
 * gets 405 with an Allow header instead of a 404, and so that the route list can be checked
 * against the OpenAPI document.
 */
export class RouteIndex {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly methods = new Set<string>();
  private readonly routes: RegisteredRoute[] = [];

  add(method: string | string[], url: string, schema?: RegisteredRoute['schema']): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      this.methods.add(m);
      this.routes.push({ method: m, url, ...(schema ? { schema } : {}) });
      try {
        this.router.on(m as FindMyWay.HTTPMethod, url, () => undefined);
      } catch {
        // The same route registered twice (HEAD for GET): already indexed.
      }
    }
  }

  /** The methods a path answers to, or an empty list for an unknown path. */
  allowedMethods(path: string): string[] {
    return [...this.methods].filter((m) => this.router.find(m as FindMyWay.HTTPMethod, path) !== null).sort();
  }

  list(): RegisteredRoute[] {
    return [...this.routes];
  }
}
