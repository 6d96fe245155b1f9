import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * The pharmacy's web console (issue 10; docs/console.md): static files built by `npm run build`
 * (Vite, console/) into dist/console, served at /console by this server, same origin as the
 * operator API it calls with the session cookie. No CDN, nothing fetched at run time.
 */

/** The console's own files only: scripts and styles from this origin, the API on this origin, no framing. */
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

/** The console's routes, in a scope of their own: their onSend hook runs on the console's answers only. */
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
    // A server started from sources without a build: say how to get the console rather than 404.
    app.get('/console', { schema: { hide: true } }, () => {
      throw new AppError('SERVICE_UNAVAILABLE', 503, 'The console is not built: run npm run build (npm start does it)');
    });
    app.get('/console/*', { schema: { hide: true } }, () => {
      throw new AppError('SERVICE_UNAVAILABLE', 503, 'The console is not built: run npm run build (npm start does it)');
    });
    return;
  }

  await app.register(fastifyStatic, {
    root: directory,
    prefix: '/console/',
    // index.html is answered by the routes below (every console path is the same page).
    index: false,
    wildcard: false,
    decorateReply: true,
    cacheControl: false,
    schemaHide: true,
  });
  const page = (_request: unknown, reply: { sendFile(file: string): unknown }) => reply.sendFile('index.html');
  app.get('/console', { schema: { hide: true } }, page);
  // Deep links (/console/orders/…): the page, whose router shows the view; files under assets/ are served as they are.
  app.get('/console/*', { schema: { hide: true } }, (request, reply) => {
    // Built files have routes of their own (registered by @fastify/static at start); a missing one is a 404.
    if ((request.params as { '*': string })['*'].startsWith('assets/'))
      throw new AppError('NOT_FOUND', 404, 'No such console file');
    return reply.sendFile('index.html');
  });
}
