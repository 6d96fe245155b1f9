import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { operatorAudit } from '../http/audit-context.js';
import { operatorErrors, createErrors, Envelope, operatorSecurity } from '../contracts/schemas.js';
import { addService, createCarrier, listCatalogue, updateService } from './catalogue.service.js';
import {
  CatalogueCarrier,
  CatalogueCarrierParams,
  CatalogueService,
  CatalogueServiceParams,
  CreateCarrierBody,
  CreateServiceBody,
  UpdateServiceBody,
} from './catalogue.schemas.js';

const tags = ['Operator'];
const security = operatorSecurity;

/** Operator routes for the carrier catalogue: carriers, services, base and per-state prices. */
export function carrierOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/admin/carriers',
      {
        schema: {
          tags,
          security,
          operationId: 'createOperatorCarrier',
          summary: 'Add a carrier',
          description: 'Without `id`, the id is derived from the name (`Stamps.com` → `stamps_com`). A taken id is a 409.',
          body: CreateCarrierBody,
          response: { 200: Envelope(CatalogueCarrier), ...createErrors('A carrier with that id') },
        },
      },
      async (request) => ({
        success: true as const,
        data: await createCarrier(ctx, request.body, operatorAudit(request)),
        message: 'Carrier created',
      }),
    );

    app.get(
      '/api/admin/carriers',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorCarriers',
          summary: 'List carriers with their services and prices',
          response: {
            200: Envelope(Type.Object({ carriers: Type.Array(CatalogueCarrier) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async () => ({ success: true as const, data: { carriers: await listCatalogue(ctx) }, message: 'Carriers' }),
    );

    app.post(
      '/api/admin/carriers/:carrierId/services',
      {
        schema: {
          tags,
          security,
          operationId: 'createOperatorCarrierService',
          summary: 'Add a shipping service to a carrier',
          description:
            'Prices are US dollars with at most two decimals; `state_prices` override `price` for patients in those states. `cold_chain_eligible` (default false): the service keeps refrigerated orders cold (docs/shipping.md#cold-chain).',
          params: CatalogueCarrierParams,
          body: CreateServiceBody,
          response: { 200: Envelope(CatalogueService), ...createErrors('A service with that id for this carrier') },
        },
      },
      async (request) => ({
        success: true as const,
        data: await addService(ctx, request.params.carrierId, request.body, operatorAudit(request)),
        message: 'Service created',
      }),
    );

    app.put(
      '/api/admin/carriers/:carrierId/services/:serviceId',
      {
        schema: {
          tags,
          security,
          operationId: 'updateOperatorCarrierService',
          summary: 'Change a shipping service\u2019s name, prices or cold-chain eligibility',
          description:
            'Send any of `name`, `price`, `state_prices`, `cold_chain_eligible`; `state_prices` replaces the whole set (`{}` removes them all).',
          params: CatalogueServiceParams,
          body: UpdateServiceBody,
          response: { 200: Envelope(CatalogueService), ...operatorErrors },
        },
      },
      async (request) => ({
        success: true as const,
        data: await updateService(ctx, request.params.carrierId, request.params.serviceId, request.body, operatorAudit(request)),
        message: 'Service updated',
      }),
    );
  };
}
