import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getClinic } from '../clinics/clinic.service.js';
import { ClinicParams, MedicationParams } from '../clinics/clinic.schemas.js';
import type { AppContext } from '../context.js';
import { createErrors, Envelope, operatorErrors, operatorSecurity } from '../contracts/schemas.js';
import { operatorAudit } from '../http/audit-context.js';
import { addMedication, listFormulary, listFormulaVersions, removeMedication, updateMedication } from './medication.service.js';
import { AddMedicationBody, FormulaVersion, Medication, UpdateMedicationBody } from './medication.schemas.js';

const tags = ['Operator'];
const security = operatorSecurity;

/**
 * Operator routes for a clinic's formulary (behind ADMIN_TOKEN or a console session): its entries,
 * their formulas and each formula's versions. Moved out of clinics/ so that clinics imports nothing of
 * the formulary (the formulary asks clinics whether a clinic exists, not the reverse).
 */
export function medicationOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/api/admin/clinics/:clinicId/medications',
      {
        schema: {
          tags,
          security,
          operationId: 'createOperatorClinicMedication',
          summary: 'Add a medication to a clinic\u2019s formulary',
          description: [
            'Orders are checked against the formulary by name, ignoring case and extra spaces; a name already present is a 409.',
            'A formula (ingredients, preparation, bud_category, storage; optionally controlled_schedule, beyond_use_days,',
            'restricted_states, and for a sterile preparation its sterile_condition) is optional; once given it is whole, and follows USP <795> or <797> (docs/compounding.md). Each change of a formula is a new version.',
          ].join(' '),
          params: ClinicParams,
          body: AddMedicationBody,
          response: { 200: Envelope(Medication), ...createErrors('A medication of that name') },
        },
      },
      async (request) => ({
        success: true as const,
        data: await addMedication(ctx, request.params.clinicId, request.body, operatorAudit(request)),
        message: 'Medication added to the formulary',
      }),
    );

    app.get(
      '/api/admin/clinics/:clinicId/medications',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorClinicMedications',
          summary: 'List a clinic\u2019s formulary',
          params: ClinicParams,
          response: {
            200: Envelope(Type.Object({ medications: Type.Array(Medication) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: { medications: await listFormulary(ctx, request.params.clinicId) },
        message: 'Formulary',
      }),
    );

    app.patch(
      '/api/admin/clinics/:clinicId/medications/:medicationId',
      {
        schema: {
          tags,
          security,
          operationId: 'updateOperatorClinicMedication',
          summary: 'Change a formulary entry, or give it a formula',
          description: [
            'Only the fields sent change; the entry that results is checked whole, as on creation (docs/compounding.md).',
            'A bad field is a 400 naming it and nothing changes; a name another entry has is a 409.',
          ].join(' '),
          params: MedicationParams,
          body: UpdateMedicationBody,
          response: { 200: Envelope(Medication), ...createErrors('A medication of that name') },
        },
      },
      async (request) => ({
        success: true as const,
        data: await updateMedication(
          ctx,
          request.params.clinicId,
          request.params.medicationId,
          request.body,
          operatorAudit(request),
        ),
        message: 'Medication updated',
      }),
    );

    app.delete(
      '/api/admin/clinics/:clinicId/medications/:medicationId',
      {
        schema: {
          tags,
          security,
          operationId: 'deleteOperatorClinicMedication',
          summary: 'Remove a medication from a clinic\u2019s formulary',
          params: MedicationParams,
          response: {
            200: Envelope(Type.Object({ medication_id: Type.String() }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async (request) => {
        const { clinicId, medicationId } = request.params;
        // Tells an unknown clinic apart from an unknown medication.
        await getClinic(ctx, clinicId);
        await removeMedication(ctx, clinicId, medicationId, operatorAudit(request));
        return {
          success: true as const,
          data: { medication_id: medicationId },
          message: 'Medication removed from the formulary',
        };
      },
    );

    app.get(
      '/api/admin/clinics/:clinicId/medications/:medicationId/formula-versions',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorFormulaVersions',
          summary: 'List the versions of a formulary entry\u2019s formula',
          description:
            'Each change of a formula makes a new version (docs/compounding.md#formula-versions); a fill records the version it was made from. First first.',
          params: MedicationParams,
          response: {
            200: Envelope(Type.Object({ versions: Type.Array(FormulaVersion) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async (request) => {
        const { clinicId, medicationId } = request.params;
        await getClinic(ctx, clinicId);
        return {
          success: true as const,
          data: { versions: await listFormulaVersions(ctx, clinicId, medicationId) },
          message: 'Formula versions',
        };
      },
    );
  };
}
