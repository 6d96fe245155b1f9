// Composite ceiling of GET /api/external/carriers (issue 19, item 1): the shared front
// (composite-front.js: headers, key lookup by hash, rate limit, log line, metrics), then the
// project's query through the raw driver (src/shipping/shipping.repository.ts `listCarriers`) and the
// route's own response schema. Its database is the project's, migrated and provisioned by the project
// (setup.js): it reads it only.
import { partnerOf, startComposite } from './composite-front.js';
import { CARRIERS } from './project-modules.js';

await startComposite(async (app, { db }) => {
  app.get('/api/external/carriers', { schema: { response: { 200: CARRIERS.CarriersResponse } } }, async (request) => {
    partnerOf(request);
    const rows = await db.all('bench_carriers', 'SELECT * FROM carriers ORDER BY name, id', []);
    return { success: true, data: { carriers: rows.map((carrier) => ({ id: carrier.id, name: carrier.name })) } };
  });
});
