import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerOf } from '../http/partner-guard.js';
import { operatorAudit } from '../http/audit-context.js';
import { Envelope, operatorErrors, operatorSecurity, partnerErrors } from '../contracts/schemas.js';
import { LicensedStates, ReplaceLicensedStatesBody } from './licensed-states.schemas.js';
import { getLicensedStates, replaceLicensedStates } from './licensed-states.service.js';

const DEFAULT_NOTE =
  'While the operator never set the list (`is_default`), development ships to all 50 states and DC and production nowhere.';

/**
 * Where the pharmacy may ship (docs/shipping.md#licensed-states): the partner's read, and the
 * operator's read and replacement (admins only).
 */
export function licensedStatesRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/external/licensed-states',
      {
        schema: {
          tags: ['Shipping'],
          operationId: 'listLicensedStates',
          'x-required-scope': 'carriers:read',
          summary: 'List the states the pharmacy may ship to',
          description: [
            'An order (or refill) for a patient in another state is refused with 400 `STATE_NOT_LICENSED` and',
            '`details.state`: route it to another pharmacy.',
            DEFAULT_NOTE,
          ].join(' '),
          security: [{ apiKey: [] }],
          response: { 200: Envelope(LicensedStates), ...partnerErrors },
        },
      },
      async (request) => {
        partnerOf(request);
        return { success: true as const, data: await getLicensedStates(ctx), message: 'Licensed states' };
      },
    );

    app.get(
      '/api/admin/licensed-states',
      {
        schema: {
          tags: ['Operator'],
          security: operatorSecurity,
          operationId: 'getOperatorLicensedStates',
          summary: 'The states the pharmacy may ship to',
          description: DEFAULT_NOTE,
          response: { 200: Envelope(LicensedStates), ...operatorErrors },
        },
      },
      async () => ({ success: true as const, data: await getLicensedStates(ctx), message: 'Licensed states' }),
    );

    app.put(
      '/api/admin/licensed-states',
      {
        schema: {
          tags: ['Operator'],
          security: operatorSecurity,
          operationId: 'replaceOperatorLicensedStates',
          summary: 'Set the states the pharmacy may ship to',
          description: [
            'Replaces the whole list in one transaction (audited). Codes are two-letter US state codes in any',
            'letter case; duplicates are removed; an unknown code is a 400 naming `states`. Every server',
            'refuses orders for states off the list from the next request on.',
          ].join(' '),
          body: ReplaceLicensedStatesBody,
          response: { 200: Envelope(LicensedStates), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await replaceLicensedStates(ctx, request.body.states, operatorAudit(request)),
        message: 'Licensed states replaced',
      }),
    );
  };
}
