import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killServerProcesses, startServerProcess } from '../helpers/server-process.js';

/**
 * examples/partner-api.http, the HTTP collection (VS Code REST Client / JetBrains HTTP Client
 * format), holds every partner call the server documents, and nothing else.
 */

const COLLECTION = path.resolve(import.meta.dirname, '../../examples/partner-api.http');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The collection's requests: the request line after each `###` separator, `{{BASE}}` and the query left out. */
function collectionRequests(): { method: string; path: string }[] {
  return readFileSync(COLLECTION, 'utf8')
    .split(/^###.*$/m)
    .slice(1)
    .map((block) => {
      const line = block.split('\n').find((candidate) => /^[A-Z]+ /.test(candidate));
      const match = /^([A-Z]+) \{\{BASE\}\}(\/[^?\s]*)/.exec(line ?? '');
      if (!match?.[1] || !match[2]) throw new Error(`no request line in the block:\n${block}`);
      return { method: match[1], path: match[2] };
    });
}

/**
 * Whether a collection path (`/x/{{ORDER}}/cancel`, `/carriers/fedex/services`) is an instance of an
 * OpenAPI path (`/x/{id}/cancel`): a parameter stands for one segment, a variable or a value.
 */
function matches(template: string, requestPath: string): boolean {
  const pattern = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${pattern}$`).test(requestPath);
}

afterAll(killServerProcesses);

describe('examples/partner-api.http', { timeout: 30_000 }, () => {
  let partnerRoutes: { method: string; path: string }[];

  beforeAll(async () => {
    const server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:' });
    const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    partnerRoutes = Object.entries(document.paths)
      .filter(([routePath]) => routePath.startsWith('/api/external/'))
      .flatMap(([routePath, operations]) =>
        Object.keys(operations)
          .filter((method) => METHODS.includes(method))
          .map((method) => ({ method: method.toUpperCase(), path: routePath })),
      );
  });

  it('when the OpenAPI document lists the partner routes, then the collection calls each of them at least once', () => {
    const requests = collectionRequests();
    const missing = partnerRoutes.filter(
      (route) => !requests.some((request) => request.method === route.method && matches(route.path, request.path)),
    );
    expect(partnerRoutes.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('when the collection is read, then every request it holds is a documented partner route', () => {
    const unknown = collectionRequests().filter(
      (request) => !partnerRoutes.some((route) => route.method === request.method && matches(route.path, request.path)),
    );
    expect(unknown).toEqual([]);
  });
});
