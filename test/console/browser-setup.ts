import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared browser's address (playwright's launchServer), or null when Chromium is missing. */
    chromiumEndpoint: string | null;
  }
}

/**
 * One Chromium for the whole browser suite: each file connects to it (support.ts, launchChromium)
 * and works in browser contexts of its own (a fresh profile each: no cookie or storage is shared),
 * instead of starting and stopping a browser per file. When Chromium is missing, each file says so.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM)) {
    project.provide('chromiumEndpoint', null);
    return async () => undefined;
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM });
  project.provide('chromiumEndpoint', server.wsEndpoint());
  return () => server.close();
}
