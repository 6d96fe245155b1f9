import { Type, type Static } from '@sinclair/typebox';

/** At most this many codes in a PUT (duplicates included): there are 59 US codes, so 100 is ample. */
export const MAX_LICENSED_STATES = 100;

export const LicensedStates = Type.Object(
  {
    states: Type.Array(Type.String({ description: 'A two-letter US state code (`CA`).' }), {
      description: 'Two-letter codes of the states the pharmacy may ship to, sorted.',
    }),
    is_default: Type.Boolean({
      description:
        'True while the operator never set the list: then development ships to all 50 states and DC, production nowhere.',
    }),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the operator last set the list; null while it was never set.',
    }),
  },
  { $id: 'LicensedStates', additionalProperties: false },
);
export type LicensedStatesView = Static<typeof LicensedStates>;

export const ReplaceLicensedStatesBody = Type.Object(
  {
    states: Type.Array(Type.String({ minLength: 1, maxLength: 20 }), {
      maxItems: MAX_LICENSED_STATES,
      description:
        'Every state the pharmacy may ship to, as two-letter US state codes (any letter case; duplicates are removed). Replaces the whole list; `[]` ships nowhere.',
    }),
  },
  { additionalProperties: false },
);
