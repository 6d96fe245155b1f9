import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../http/schemas.js';
import { MEDICATION_REQUEST_STATUSES } from './medication-request-status.js';
import { StatusSchema } from './medication-request.schemas.js';

export const AdminStatusBody = Type.Object(
  {
    status: StatusSchema,
    tracking_number: Type.Optional(
      Type.String({
        minLength: 5,
        maxLength: 64,
        pattern: '^[A-Za-z0-9][A-Za-z0-9 -]*$',
        description: 'Required when status is shipped.',
        'x-message': 'must be 5 to 64 letters, digits, spaces or hyphens',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AdminListQuery = Type.Object({
  status: Type.Optional(Type.Union(MEDICATION_REQUEST_STATUSES.map((s) => Type.Literal(s)))),
  clinic_id: Type.Optional(Uuid()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export const AdminMedicationRequestSummary = Type.Object(
  {
    medication_request_id: Uuid(),
    clinic_id: Uuid(),
    patient_id: Uuid(),
    practitioner_id: Uuid(),
    status: StatusSchema,
    item_count: Type.Integer(),
    carrier_id: Type.String(),
    service_id: Type.String(),
    total_cost: Type.Number(),
    tracking_number: Nullable(Type.String()),
    refill_of: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { additionalProperties: false },
);
export type AdminMedicationRequestSummaryData = Static<typeof AdminMedicationRequestSummary>;
