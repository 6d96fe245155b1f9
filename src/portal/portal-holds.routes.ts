import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { Envelope, errorRef } from '../contracts/schemas.js';
import { portalAudit } from '../http/audit-context.js';
import { HoldReasonList, HoldResponseBody } from '../holds/hold.schemas.js';
import { portalDeveloperOf, partnerUserOf } from './partner-user-identity.js';
import { portalChangeErrors, portalNotFound, portalReadErrors, portalSecurity, portalTags } from './portal-common.schemas.js';
import { PortalHoldAnswer, PortalHoldPage, PortalHoldParams, PortalHoldsQuery } from './portal-holds.schemas.js';
import { answerHoldInPortal, holdReasons, listHolds } from './portal-holds.service.js';

const tags = portalTags;
const security = portalSecurity;

/** "Needs your answer": the clinic's orders on hold, the catalog of reasons, and a developer's answer. */
export function portalHoldRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/portal/holds',
      {
        schema: {
          tags,
          security,
          operationId: 'portalListHolds',
          summary: 'Your clinic\u2019s orders on hold',
          description:
            'The orders the pharmacy has put on hold: those waiting on your answer first, then those waiting on the pharmacy, each part oldest hold first; each with the reason, what resolves it (`answer`) and the hold\u2019s conversation. `limit` 1 to 100 (default 50); `next_cursor` as `cursor` for the next page. `waiting_on_partner` and `waiting_on_pharmacy` count them all.',
          querystring: PortalHoldsQuery,
          response: { 200: Envelope(PortalHoldPage), ...portalReadErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await listHolds(ctx, partnerUserOf(request), request.query),
        message: 'Orders on hold',
      }),
    );

    app.get(
      '/api/portal/hold-reasons',
      {
        schema: {
          tags,
          security,
          operationId: 'portalListHoldReasons',
          summary: 'Why the pharmacy may put an order on hold',
          description:
            'The catalog `GET /api/external/hold-reasons` answers: each reason\u2019s code, its text, whom it waits on (null: the pharmacy says, for `other`) and what resolves it.',
          response: { 200: Envelope(HoldReasonList), ...portalReadErrors },
        },
      },
      async () => ({ success: true as const, data: [...holdReasons()], message: 'Hold reasons' }),
    );

    app.post(
      '/api/portal/holds/:orderId/response',
      {
        schema: {
          tags,
          security,
          operationId: 'portalAnswerHold',
          summary: 'Answer a hold (developers)',
          description:
            'Exactly `POST /api/external/medication-order/{id}/hold-response`, signed by you: the answer is in the hold\u2019s history and the audit trail, and the order then waits on the pharmacy. An `address_undeliverable` hold answered with `address` resumes at once; `cancel: true` cancels the order.',
          params: PortalHoldParams,
          body: HoldResponseBody,
          response: {
            200: Envelope(PortalHoldAnswer),
            ...portalChangeErrors,
            ...portalNotFound('Medication request'),
            409: errorRef('The order is not on hold.'),
          },
        },
      },
      async (request) => {
        const user = portalDeveloperOf(request);
        const data = await answerHoldInPortal(ctx, user, request.params.orderId, request.body, portalAudit(request, user));
        const message =
          data.status === 'on_hold'
            ? 'Answer sent: the order waits on the pharmacy'
            : `Answer sent: the order is now ${data.status}`;
        return { success: true as const, data, message };
      },
    );
  };
}
