import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * The pharmacy's web console (issue 10; docs/console.md) and the partner portal (issue 22;
 * docs/portal.md): static files built by `npm run build` (Vite, console/) into dist/console, served
 * at /console and /portal by this server, same origin as the APIs they call with their session
 * cookies. No CDN, nothing fetched at run time.
 */

/** The front end's own files only: scripts and styles from this origin, the API on this origin, no framing. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "manifest-src 'self'",
  "object-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
].join('; ');

/** Where Vite puts content-hashed files: cached for a year (a new build has new names). */
const ASSET_PREFIX = '/console/assets/';

/** dist/console next to the compiled server (dist/http/console.js), or dist/console from the sources (tests). */
export function consoleDirectory(): string | null {
  const candidates = [path.resolve(import.meta.dirname, '../console'), path.resolve(import.meta.dirname, '../../dist/console')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? null;
}

/** The pages of the one front end: each path prefix and its HTML file in the build (issue 22: the portal). */
const PAGES = [
  { prefix: '/console', file: 'index.html', what: 'console' },
  { prefix: '/portal', file: 'portal.html', what: 'portal' },
] as const;

/**
 * The console's and the portal's routes, in a scope of their own: their onSend hook runs on these
 * answers only. Both pages come from one build (dist/console), their files under /console/assets/.
 */
export async function registerConsole(app: FastifyInstance, directory: string | null = consoleDirectory()): Promise<void> {
  await app.register(async (scope) => consoleRoutes(scope, directory));
}

async function consoleRoutes(app: FastifyInstance, directory: string | null): Promise<void> {
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('Content-Security-Policy', CONSOLE_CSP);
    if (request.url.startsWith(ASSET_PREFIX) && reply.statusCode === 200) {
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
    }
    done(null, payload);
  });

  if (!directory) {
    // A server started from sources without a build: say how to get the page rather than 404.
    for (const { prefix, what } of PAGES) {
      const notBuilt = () => {
        throw new AppError('SERVICE_UNAVAILABLE', 503, `The ${what} is not built: run npm run build (npm start does it)`);
      };
      app.get(prefix, { schema: { hide: true } }, notBuilt);
      app.get(`${prefix}/*`, { schema: { hide: true } }, notBuilt);
    }
    return;
  }

  await app.register(fastifyStatic, {
    root: directory,
    prefix: '/console/',
    // index.html and portal.html are answered by the routes below (every path of a page is the same page).
    index: false,
    wildcard: false,
    decorateReply: true,
    cacheControl: false,
    schemaHide: true,
  });
  for (const { prefix, file, what } of PAGES) {
    const page = (_request: unknown, reply: { sendFile(file: string): unknown }) => reply.sendFile(file);
    app.get(prefix, { schema: { hide: true } }, page);
    // Deep links (/console/orders/…, /portal/webhooks): the page, whose router shows the view; files
    // under /console/assets/ are served as they are.
    app.get(`${prefix}/*`, { schema: { hide: true } }, (request, reply) => {
      // Built files have routes of their own (registered by @fastify/static at start); a missing one is a 404.
      if (prefix === '/console' && (request.params as { '*': string })['*'].startsWith('assets/'))
        throw new AppError('NOT_FOUND', 404, `No such ${what} file`);
      return reply.sendFile(file);
    });
  }
}
