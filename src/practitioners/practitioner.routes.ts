import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { Envelope, forbiddenError, notFoundError, partnerErrors } from '../contracts/schemas.js';
import {
  PractitionerCreateBody,
  PractitionerCreated,
  PractitionerCredentialsBody,
  PractitionerParams,
  PractitionerRecord,
} from './practitioner.schemas.js';
import { createPractitioner, getPractitioner, updateCredentials } from './practitioner.service.js';

export function practitionerRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/practitioner',
      {
        schema: {
          tags: ['Practitioners'],
          operationId: 'createPractitioner',
          'x-required-scope': 'practitioners:write',
          summary: 'Create a practitioner',
          description:
            "Registers a doctor or a veterinarian of the API key's clinic. A human practitioner's `npi` must be a real NPI (10 digits, valid check digit); a veterinarian's is free-form. Optionally, the prescriber's credentials: `dea_number` (valid registrant type and check digit) and state `licenses` (extension, issue 30). Unknown fields are refused. Every invalid field is named in `error.details`.",
          body: PractitionerCreateBody,
          response: {
            200: Envelope(PractitionerCreated),
            ...partnerErrors,
            ...forbiddenError,
          },
        },
      },
      async (request) => {
        const data = await createPractitioner(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Practitioner created successfully' };
      },
    );

    app.get(
      '/api/external/practitioner/:practitionerId',
      {
        schema: {
          tags: ['Practitioners'],
          operationId: 'getPractitioner',
          'x-required-scope': 'practitioners:read',
          summary: 'Read a practitioner (extension)',
          description:
            "Returns a practitioner of the API key's clinic as stored. Not part of spec 1.0.0. Another clinic's practitioner is not found.",
          params: PractitionerParams,
          response: {
            200: Envelope(PractitionerRecord),
            ...partnerErrors,
            ...notFoundError('Practitioner'),
          },
        },
      },
      async (request) => {
        const data = await getPractitioner(ctx, partnerOf(request), request.params.practitionerId, partnerAudit(request));
        return { success: true as const, data, message: 'Practitioner retrieved successfully' };
      },
    );

    app.put(
      '/api/external/practitioner/:practitionerId/credentials',
      {
        schema: {
          tags: ['Practitioners'],
          operationId: 'updatePractitionerCredentials',
          'x-required-scope': 'practitioners:write',
          summary: 'Replace a practitioner\u2019s DEA number and state licences (extension)',
          description: [
            'Replaces both credentials of a practitioner of the API key\u2019s clinic: `dea_number` (null removes it)',
            'and `licenses` (an empty list removes them). An order holding a controlled-schedule medication needs a',
            'prescriber with a DEA number; with REQUIRE_PRESCRIBER_STATE_LICENSE on, one with an unexpired licence in',
            'the patient\u2019s state. Answers the practitioner as stored. Another clinic\u2019s practitioner is not found.',
          ].join(' '),
          params: PractitionerParams,
          body: PractitionerCredentialsBody,
          response: {
            200: Envelope(PractitionerRecord),
            ...partnerErrors,
            ...notFoundError('Practitioner'),
          },
        },
      },
      async (request) => {
        const data = await updateCredentials(
          ctx,
          partnerOf(request),
          request.params.practitionerId,
          request.body,
          partnerAudit(request),
        );
        return { success: true as const, data, message: 'Practitioner credentials updated successfully' };
      },
    );
  };
}
