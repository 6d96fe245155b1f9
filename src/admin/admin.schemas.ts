import { Type } from '@sinclair/typebox';
import { adminErrors, conflictError, Uuid } from '../http/schemas.js';

/* Schemas of the operator API (/api/admin): request bodies are strict, responses are allow-lists. */

export const operatorSecurity = [{ operatorToken: [] }];
export { adminErrors, conflictError };

export const ClinicParams = Type.Object({ clinicId: Uuid('The clinic\u2019s id.') });
export const ApiKeyParams = Type.Object({ apiKeyId: Uuid('The API key\u2019s id (not the key).') });
export const MedicationParams = Type.Object({
  clinicId: Uuid('The clinic\u2019s id.'),
  medicationId: Uuid('The medication\u2019s id.'),
});
export const CarrierParams = Type.Object({
  carrierId: Type.String({ minLength: 1, maxLength: 200, description: 'The carrier\u2019s id.' }),
});
export const ServiceParams = Type.Object({
  carrierId: Type.String({ minLength: 1, maxLength: 200, description: 'The carrier\u2019s id.' }),
  serviceId: Type.String({ minLength: 1, maxLength: 200, description: 'The service\u2019s id.' }),
});

/** Error responses of operator routes that create something with a unique name or id. */
export const createErrors = (what: string) => ({ ...adminErrors, ...conflictError(`${what} already exists.`) });
