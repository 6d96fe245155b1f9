import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from '../contracts/schemas.js';
import { REVIEW_CHECKS, SIGNOFF_KIND_INPUTS, SIGNOFF_KINDS } from './signoff.js';

const KINDS_MEANING =
  '`prescription_review`: the pharmacist verified the prescription, checking the patient\u2019s allergies, duplicate therapy and the dose (needed before `processing`); `final_check`: the pharmacist checked the finished product, once every item is filled (needed before `shipped`).';

/** What a review checked: each of the three, required on a review. */
const reviewChecks = (description: string) =>
  Type.Array(StringEnum(REVIEW_CHECKS, 'One check the review made.'), {
    uniqueItems: true,
    maxItems: REVIEW_CHECKS.length,
    description,
  });

/** `POST /api/admin/medication-requests/{id}/signoffs`. */
export const SignoffBody = Type.Object(
  {
    kind: StringEnum(
      SIGNOFF_KIND_INPUTS,
      `${KINDS_MEANING} \`product_check\`: 1.2.0\u2019s name of the final check, still accepted and answered as \`final_check\`.`,
    ),
    checked: Type.Optional(
      reviewChecks(
        'What the prescription review checked: `allergies`, `duplicate_therapy` and `dose`, all three required on a `prescription_review` (400 naming `checked` otherwise); not given with a `final_check`.',
      ),
    ),
    pharmacist_id: Type.Optional(
      Uuid(
        'The pharmacist\u2019s own staff id, which may be left out: a sign-off is recorded only by the pharmacist signed in as themselves (400 when it names someone else). Nobody signs for a pharmacist: the operator token, an admin and a technician are refused with 403.',
      ),
    ),
  },
  { $id: 'MedicationRequestSignoffRequest', additionalProperties: false },
);
export type SignoffInput = Static<typeof SignoffBody>;

/** One sign-off as the pharmacy reads it: what, what it checked, who, when. */
export const SignoffView = Type.Object(
  {
    signoff_id: Uuid(),
    kind: StringEnum(SIGNOFF_KINDS, `${KINDS_MEANING} A final check given as \`product_check\` (1.2.0) reads \`final_check\`.`),
    checked: Nullable(reviewChecks('The checks, in this order.'), {
      description:
        'What a prescription review checked (`allergies`, `duplicate_therapy`, `dose`); null for a final check, and for a review recorded before 1.5.0, which did not say.',
    }),
    pharmacist_id: Uuid('The pharmacist\u2019s staff id.'),
    pharmacist_name: Type.String({ description: 'The pharmacist\u2019s name when they signed.' }),
    at: Timestamp,
  },
  { additionalProperties: false },
);
export type SignoffViewData = Static<typeof SignoffView>;
