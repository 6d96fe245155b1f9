import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { conflictError, Envelope, forbiddenError, notFoundError, partnerErrors } from '../http/schemas.js';
import { cancelMedicationRequest } from './medication-request-transition.service.js';
import {
  CreateMedicationRequestBody,
  CreateMedicationRequestData,
  IdParams,
  ListMedicationRequestsQuery,
  MedicationRequestPage,
  MedicationRequestView,
} from './medication-request.schemas.js';
import { RefillBody, RefillData, RefillRequestView } from './refill.schemas.js';
import { createMedicationRequest, getMedicationRequest, listMedicationRequests } from './medication-request.service.js';
import { createRefill, getRefillRequest } from './refill.service.js';

const security = [{ apiKey: [] }];

/** The partner's order and refill endpoints (spec: Endpoints; retrieval and cancellation are extensions). */
export function medicationRequestRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/medication-order',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'createMedicationOrder',
          summary: 'Create a medication request',
          description:
            'Creates a medication request in status `pending` for a patient and practitioner of the clinic. Every medication must be in the clinic\u2019s formulary; `unit_of_measure` is derived from `dose` when omitted; `refills` is a whole number written as a string. The shipping choice is priced for the patient\u2019s state when ordering (free shipping applied). At most 20 medications. Writes the `order.created` event.',
          body: CreateMedicationRequestBody,
          response: {
            200: Envelope(CreateMedicationRequestData),
            ...partnerErrors,
            ...forbiddenError,
            ...notFoundError('Patient or practitioner (`details` names which)'),
          },
        },
      },
      async (request) => {
        const data = await createMedicationRequest(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Medication request created successfully' };
      },
    );

    app.get(
      '/api/external/medication-order/:id',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'getMedicationOrder',
          summary: 'Read a medication request (extension)',
          description:
            'Status, medications, shipping choice and cost, tracking number, timestamps, status history, refills authorized, used and remaining, and the order a refill was made of. Another clinic\u2019s order is not found.',
          params: IdParams,
          response: { 200: Envelope(MedicationRequestView), ...partnerErrors, ...notFoundError('Medication request') },
        },
      },
      async (request) => {
        const data = await getMedicationRequest(ctx, partnerOf(request), request.params.id, partnerAudit(request));
        return { success: true as const, data, message: 'Medication request retrieved successfully' };
      },
    );

    app.get(
      '/api/external/medication-orders',
      {
        schema: {
          operationId: 'listMedicationOrders',
          tags: ['Orders'],
          security,
          summary: 'List your clinic\u2019s medication requests (extension)',
          description: [
            'Your clinic\u2019s orders, newest first, each as `GET /api/external/medication-order/{id}` shows it; only',
            'those in `status` and of `patient_id` when given (another clinic\u2019s patient matches none). `limit` 1 to',
            '100 (default 50) per page; pass `next_cursor` as `cursor` for the next page (null on the last).',
          ].join(' '),
          querystring: ListMedicationRequestsQuery,
          response: { 200: Envelope(MedicationRequestPage), ...partnerErrors },
        },
      },
      async (request) => {
        const data = await listMedicationRequests(ctx, partnerOf(request), request.query, partnerAudit(request));
        return { success: true as const, data, message: 'Medication requests retrieved successfully' };
      },
    );

    app.post(
      '/api/external/medication-order/:id/cancel',
      {
        schema: {
          tags: ['Orders'],
          security,
          operationId: 'cancelMedicationOrder',
          summary: 'Cancel a medication request (extension)',
          description:
            'Cancels a `pending` or `processing` medication request; any other status is refused with 409 CONFLICT naming it. Writes the `order.cancelled` event. A cancelled refill gives its refill back to the prescription.',
          params: IdParams,
          response: {
            200: Envelope(MedicationRequestView),
            ...partnerErrors,
            ...notFoundError('Medication request'),
            ...conflictError(
              'The medication request can no longer be cancelled (it has shipped, been delivered or been cancelled).',
            ),
          },
        },
      },
      async (request) => {
        const data = await cancelMedicationRequest(ctx, partnerOf(request), request.params.id, partnerAudit(request));
        return { success: true as const, data, message: 'Medication request cancelled' };
      },
    );

    app.post(
      '/api/external/refill-request',
      {
        schema: {
          tags: ['Refills'],
          security,
          operationId: 'createRefillRequest',
          summary: 'Request a refill',
          description:
            'Refills a `shipped` or `delivered` medication request (an original or a refill): creates a refill request, a new prescription and a new `pending` medication request for the same patient, practitioner and shipping choice (at today\u2019s price). 400 messages: "Medication request not found", "Refills are not possible for pending medication requests", "Refill request already exists", and one for processing or cancelled requests and for prescriptions without refills left. Writes `order.created` and `refill.ready`.',
          body: RefillBody,
          response: { 200: Envelope(RefillData), ...partnerErrors },
        },
      },
      async (request) => {
        const data = await createRefill(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Refill request created successfully' };
      },
    );

    app.get(
      '/api/external/refill-request/:id',
      {
        schema: {
          tags: ['Refills'],
          security,
          operationId: 'getRefillRequest',
          summary: 'Read a refill request (extension)',
          description:
            'Its status (`open` until its order ships or is cancelled, then `fulfilled` or `cancelled`) and its new order.',
          params: IdParams,
          response: { 200: Envelope(RefillRequestView), ...partnerErrors, ...notFoundError('Refill request') },
        },
      },
      async (request) => {
        const data = await getRefillRequest(ctx, partnerOf(request), request.params.id, partnerAudit(request));
        return { success: true as const, data, message: 'Refill request retrieved successfully' };
      },
    );
  };
}
