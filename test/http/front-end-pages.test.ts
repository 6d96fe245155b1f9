import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, registerConsole } from '../../src/http/console.js';
import { registerErrorHandler } from '../../src/contracts/error-handler.js';

/**
 * The front end's pages (src/http/console.ts): the console at /console and the partner portal at
 * /portal, two HTML files of one build sharing /console/assets/, each with the CSP; a message
 * naming the build when there is none. A stand-in build folder: no Vite run here.
 */

async function serve(directory: string | null): Promise<FastifyInstance> {
  const app = Fastify();
  registerErrorHandler(app);
  await registerConsole(app, directory);
  await app.ready();
  return app;
}

describe('the console and the portal pages', () => {
  let build: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    build = mkdtempSync(path.join(tmpdir(), 'front-end-'));
    writeFileSync(path.join(build, 'index.html'), '<title>console</title>');
    writeFileSync(path.join(build, 'portal.html'), '<title>portal</title>');
    mkdirSync(path.join(build, 'assets'));
    writeFileSync(path.join(build, 'assets', 'shared-abc123.js'), 'export {};');
    app = await serve(build);
  });
  afterAll(async () => {
    await app.close();
    rmSync(build, { recursive: true, force: true });
  });

  it.each(['/portal', '/portal/webhooks', '/portal/invitation'])(
    'when %s is asked, then the portal page is answered with the CSP',
    async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('<title>portal</title>');
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    },
  );

  it.each(['/console', '/console/orders/123'])(
    'when %s is asked, then the console page is answered with the CSP',
    async (url) => {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('<title>console</title>');
      expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    },
  );

  it('when a shared asset is asked, then it is cached for a year', async () => {
    const response = await app.inject({ method: 'GET', url: '/console/assets/shared-abc123.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
  });

  it('when a missing asset is asked, then the answer is 404, not a page', async () => {
    const response = await app.inject({ method: 'GET', url: '/console/assets/missing.js' });
    expect(response.statusCode).toBe(404);
  });
});

describe('without a build', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await serve(null);
  });
  afterAll(() => app.close());

  it.each([
    ['/portal/keys', 'The portal is not built: run npm run build (npm start does it)'],
    ['/console', 'The console is not built: run npm run build (npm start does it)'],
  ])('when %s is asked, then 503 says how to build it', async (url, message) => {
    const response = await app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message } });
  });
});
