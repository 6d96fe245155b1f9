import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { partnerAudit } from '../http/audit-context.js';
import { partnerOf } from '../http/partner-guard.js';
import { Envelope, forbiddenError, notFoundError, partnerErrors } from '../contracts/schemas.js';
import { AllergiesBody, PatientCreateBody, PatientCreated, PatientParams, PatientRecord } from './patient.schemas.js';
import { createPatient, getPatient, replaceAllergies } from './patient.service.js';

export function patientRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/external/patient',
      {
        schema: {
          tags: ['Patients'],
          operationId: 'createPatient',
          'x-required-scope': 'patients:write',
          summary: 'Create a patient',
          description:
            "Registers a patient (human or animal) of the API key's clinic. Required: first_name, last_name, gender, dob, assigned_clinic and exactly one complete address (the pharmacy ships to it). `species` defaults to human, `status` to active. Optional `allergies` and `no_known_allergies` (extension): each order's active ingredients are compared with them (docs/compounding.md#allergies-and-duplicate-therapy). Unknown fields are refused. Every invalid field is named in `error.details`.",
          body: PatientCreateBody,
          response: {
            200: Envelope(PatientCreated),
            ...partnerErrors,
            ...forbiddenError,
            ...notFoundError('Practitioner (practitioner_id unknown or of another clinic)'),
          },
        },
      },
      async (request) => {
        const data = await createPatient(ctx, partnerOf(request), request.body, partnerAudit(request));
        return { success: true as const, data, message: 'Patient created successfully' };
      },
    );

    app.get(
      '/api/external/patient/:patientId',
      {
        schema: {
          tags: ['Patients'],
          operationId: 'getPatient',
          'x-required-scope': 'patients:read',
          summary: 'Read a patient (extension)',
          description:
            "Returns a patient of the API key's clinic as stored. Not part of spec 1.0.0. Another clinic's patient is not found.",
          params: PatientParams,
          response: {
            200: Envelope(PatientRecord),
            ...partnerErrors,
            ...notFoundError('Patient'),
          },
        },
      },
      async (request) => {
        const data = await getPatient(ctx, partnerOf(request), request.params.patientId, partnerAudit(request));
        return { success: true as const, data, message: 'Patient retrieved successfully' };
      },
    );

    app.put(
      '/api/external/patient/:patientId/allergies',
      {
        schema: {
          tags: ['Patients'],
          operationId: 'replacePatientAllergies',
          'x-required-scope': 'patients:write',
          summary: "Replace a patient's allergies (extension)",
          description:
            "Replaces the patient's recorded allergies and `no_known_allergies` with the body's: send the whole list (an empty list records none). `no_known_allergies: true` with a non-empty list is refused (400). Orders placed afterwards are compared with the new list; orders already placed are not re-checked. Another clinic's patient is not found. Not part of spec 1.0.0.",
          params: PatientParams,
          body: AllergiesBody,
          response: {
            200: Envelope(PatientRecord),
            ...partnerErrors,
            ...forbiddenError,
            ...notFoundError('Patient'),
          },
        },
      },
      async (request) => {
        const data = await replaceAllergies(
          ctx,
          partnerOf(request),
          request.params.patientId,
          request.body,
          partnerAudit(request),
        );
        return { success: true as const, data, message: 'Patient allergies updated' };
      },
    );
  };
}
