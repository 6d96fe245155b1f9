import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerOf } from '../http/partner-guard.js';
import { notFoundError, partnerErrors } from '../contracts/schemas.js';
import { CarrierParams, CarrierServicesQuery, CarrierServicesResponse, CarriersResponse } from './carrier.schemas.js';
import { listPartnerCarriers, listServicesForPatient } from './shipping.service.js';

/** GET /api/external/carriers and GET /api/external/carriers/{carrierId}/services (spec, Endpoints). */
export function carrierRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/external/carriers',
      {
        schema: {
          tags: ['Shipping'],
          operationId: 'listCarriers',
          'x-required-scope': 'carriers:read',
          summary: 'List carriers',
          description: 'Carriers usable for shipping medication orders. The response has no `message` (as the spec writes it).',
          security: [{ apiKey: [] }],
          response: { 200: CarriersResponse, ...partnerErrors },
        },
      },
      async (request) => {
        partnerOf(request);
        return { success: true as const, data: { carriers: await listPartnerCarriers(ctx) } };
      },
    );

    app.get(
      '/api/external/carriers/:carrierId/services',
      {
        schema: {
          tags: ['Shipping'],
          operationId: 'listCarrierServices',
          'x-required-scope': 'carriers:read',
          summary: 'List a carrier\u2019s services priced for a patient',
          description: [
            'Prices are US dollars for the state of the patient\u2019s address (a service may cost more in some states).',
            'When the clinic has free shipping, `totalCost` is 0, `originalCost` keeps the price, `isFreeShipment` is true',
            'and `freeShipmentType` is `clinic_specific`.',
            '404 when the carrier is unknown or the patient is not one of your clinic\u2019s; 400 when `patientId` is missing',
            'or not a UUID, or when the patient has no address.',
          ].join(' '),
          security: [{ apiKey: [] }],
          params: CarrierParams,
          querystring: CarrierServicesQuery,
          response: { 200: CarrierServicesResponse, ...partnerErrors, ...notFoundError('Carrier or patient') },
        },
      },
      async (request) => {
        const { clinicId } = partnerOf(request);
        const result = await listServicesForPatient(
          ctx,
          clinicId,
          request.params.carrierId,
          request.query.patientId,
          ctx.config.env,
        );
        return { success: true as const, ...result };
      },
    );
  };
}
