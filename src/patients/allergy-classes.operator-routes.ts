import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { conflictError, Envelope, operatorErrors, operatorSecurity } from '../contracts/schemas.js';
import { operatorAudit } from '../http/audit-context.js';
import { AllergyClass, AllergyClassParams, PutAllergyClassBody } from './allergy-classes.schemas.js';
import { deleteAllergyClass, listAllergyClasses, putAllergyClass } from './allergy-classes.service.js';

const tags = ['Operator'];
const security = operatorSecurity;

/**
 * The allergy classes intake compares a patient's allergies with (docs/compounding.md#allergy-classes):
 * the documented defaults and the operator's own, read by staff, set and removed by pharmacists.
 */
export function allergyClassOperatorRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/admin/allergy-classes',
      {
        schema: {
          tags,
          security,
          operationId: 'listOperatorAllergyClasses',
          summary: 'The allergy classes intake compares allergies with',
          description:
            'The documented defaults (docs/compounding.md#allergy-classes) with the operator\u2019s classes applied: one replaces the default of its code, or adds a class.',
          response: {
            200: Envelope(Type.Object({ classes: Type.Array(AllergyClass) }, { additionalProperties: false })),
            ...operatorErrors,
          },
        },
      },
      async () => ({ success: true as const, data: { classes: await listAllergyClasses(ctx) }, message: 'Allergy classes' }),
    );

    app.put(
      '/api/admin/allergy-classes/:code',
      {
        schema: {
          tags,
          security,
          operationId: 'putOperatorAllergyClass',
          summary: 'Set an allergy class (replacing the default of its code, or adding one)',
          description: [
            'Audited. Orders are compared with the table as it is at their intake, from the next request on, on every server;',
            'orders already held or accepted are not checked again. A name or member with no letter or digit is a 400 naming it;',
            'a new code past the table\u2019s 200 classes is a 409.',
          ].join(' '),
          params: AllergyClassParams,
          body: PutAllergyClassBody,
          response: {
            200: Envelope(AllergyClass),
            ...operatorErrors,
            ...conflictError('A new class past the table\u2019s limit.'),
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: await putAllergyClass(ctx, request.params.code, request.body, operatorAudit(request)),
        message: 'Allergy class set',
      }),
    );

    app.delete(
      '/api/admin/allergy-classes/:code',
      {
        schema: {
          tags,
          security,
          operationId: 'deleteOperatorAllergyClass',
          summary: 'Remove the operator\u2019s allergy class of a code',
          description:
            'Audited. The default of the same code, if there is one, applies again (`data.class`); a default the operator never set cannot be removed (409); an unknown code is a 404.',
          params: AllergyClassParams,
          response: {
            200: Envelope(
              Type.Object(
                {
                  code: Type.String(),
                  class: Type.Union([AllergyClass, Type.Null()], {
                    description: 'The default that applies again; null when none.',
                  }),
                },
                { additionalProperties: false },
              ),
            ),
            ...operatorErrors,
            ...conflictError('A default class the operator never set: it cannot be removed.'),
          },
        },
      },
      async (request) => ({
        success: true as const,
        data: {
          code: request.params.code,
          class: await deleteAllergyClass(ctx, request.params.code, operatorAudit(request)),
        },
        message: 'Allergy class removed',
      }),
    );
  };
}
