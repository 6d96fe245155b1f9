import { Type, type Static } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../contracts/schemas.js';
import { SIGNOFF_KINDS, type SignoffKind } from './signoff.js';

/** As `{type: string, enum}`: a bad value gets one "must be one of" message listing both. */
const SignoffKindSchema = Type.Unsafe<SignoffKind>({
  type: 'string',
  enum: [...SIGNOFF_KINDS],
  description:
    '`prescription_review`: the pharmacist verified the prescription (needed before `processing`); `product_check`: the pharmacist checked the finished product (needed before `shipped`).',
});

/** `POST /api/admin/medication-requests/{id}/signoffs`. */
export const SignoffBody = Type.Object(
  {
    kind: SignoffKindSchema,
    pharmacist_id: Type.Optional(
      Uuid(
        'The staff id of the pharmacist who signs: required with the operator token or an admin\u2019s session (an enabled account with the pharmacist role); a pharmacist signed in to the console signs as themselves (if given, it must be their own id).',
      ),
    ),
  },
  { $id: 'MedicationRequestSignoffRequest', additionalProperties: false },
);
export type SignoffInput = Static<typeof SignoffBody>;

/** One sign-off as the pharmacy reads it: what, who, when. */
export const SignoffView = Type.Object(
  {
    signoff_id: Uuid(),
    kind: SignoffKindSchema,
    pharmacist_id: Uuid('The pharmacist\u2019s staff id.'),
    pharmacist_name: Type.String({ description: 'The pharmacist\u2019s name when they signed.' }),
    at: Timestamp,
  },
  { additionalProperties: false },
);
export type SignoffViewData = Static<typeof SignoffView>;
