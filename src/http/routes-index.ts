import FindMyWay from 'find-my-way';

/**
 * Remembers every registered route so that a request for a known path with the wrong method
 * gets 405 with an Allow header instead of a 404.
 */
export class RouteIndex {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
  private readonly methods = new Set<string>();

  add(method: string | string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      this.methods.add(m);
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
}
