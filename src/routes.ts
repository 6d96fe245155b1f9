import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { healthRoutes } from './health/health.routes.js';

/** Every feature's routes, mounted in one visible list. */
export async function registerRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(healthRoutes(ctx));
}
