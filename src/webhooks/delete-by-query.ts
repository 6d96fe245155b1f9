import type { FastifyRequest } from 'fastify';
import { optionalBodyHook } from '../contracts/optional-body.js';
import { validatorCompiler } from '../contracts/validation.js';
import { DeleteEndpointQuery } from './webhook.schemas.js';

/** The query's own check, run before the body's: a bad `?id=` is refused naming `id`, not the body's `webhook_id`. */
const checkQuery = validatorCompiler({
  schema: DeleteEndpointQuery,
  method: 'DELETE',
  url: '/api/external/webhook',
  httpPart: 'querystring',
});

/**
 * preValidation of `DELETE /api/external/webhook`: a request without a body that names the
 * endpoint as `?id=` (the original system's form, issue 22) is handled as the body
 * `{clinic_id: <the credential's clinic>, webhook_id: <id>}`. With a body, the body decides, as before.
 * `clinicOf`: the clinic of the request's credential, as the route's guard established it.
 */
export const endpointRefFromQuery = (clinicOf: (request: FastifyRequest) => string) =>
  optionalBodyHook(async (request: FastifyRequest): Promise<void> => {
    if (request.body !== undefined) return;
    const query = request.query as Record<string, unknown>;
    if (query.id === undefined) return;
    const checked = checkQuery(query) as { error?: Error; value?: unknown };
    if (checked.error) throw checked.error;
    request.body = { clinic_id: clinicOf(request), webhook_id: (checked.value as { id: string }).id };
  });
