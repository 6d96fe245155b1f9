import { Type, type Static } from '@sinclair/typebox';
import { NameText, Nullable, Text, textDoc } from '../contracts/schemas.js';

/* The allergy classes as the operator reads and sets them (docs/compounding.md#allergy-classes). */

/** The most classes the table holds (defaults and the operator's), the most names and members a class has. */
export const ALLERGY_CLASS_LIMITS = { classes: 200, names: 50, members: 100, word: 100, label: 120 } as const;

/** A class code: lower-case words joined by `_`, as a therapeutic class is written. */
export const ALLERGY_CLASS_CODE_PATTERN = '^[a-z][a-z0-9]*(_[a-z0-9]+)*$';

export const AllergyClassParams = Type.Object({
  code: Type.String({
    pattern: ALLERGY_CLASS_CODE_PATTERN,
    maxLength: 64,
    description: 'The class\u2019s code: lower-case words joined by `_` (`sulfonamides`, `penicillins`).',
  }),
});

const Word = Text(ALLERGY_CLASS_LIMITS.word, { description: textDoc('plain') });

export const PutAllergyClassBody = Type.Object(
  {
    label: NameText(ALLERGY_CLASS_LIMITS.label, { description: 'The class as staff read it, e.g. `Penicillins`.' }),
    names: Type.Array(Word, {
      minItems: 1,
      maxItems: ALLERGY_CLASS_LIMITS.names,
      description:
        'Words a recorded allergy may use for the class (`penicillin`, `penicillins`): an allergy whose substance is one of them, ignoring case, spaces and salt words, is of the class.',
    }),
    members: Type.Array(Word, {
      minItems: 1,
      maxItems: ALLERGY_CLASS_LIMITS.members,
      description:
        'Ingredient names the class covers, active or inactive (`amoxicillin`, `cottonseed`): an ingredient whose name holds one of them as whole consecutive words is covered.',
    }),
  },
  { $id: 'AllergyClassRequest', additionalProperties: false },
);
export type PutAllergyClassInput = Static<typeof PutAllergyClassBody>;

export const AllergyClass = Type.Object(
  {
    code: Type.String(),
    label: Type.String(),
    names: Type.Array(Type.String()),
    members: Type.Array(Type.String()),
    source: Type.Union([Type.Literal('default'), Type.Literal('operator')], {
      description:
        '`default`: the documented table\u2019s; `operator`: set with PUT (replacing the default of its code, if any).',
    }),
    replaces_default: Type.Boolean({ description: 'True when an operator\u2019s class replaces a default of the same code.' }),
    updated_at: Nullable(Type.String(), { description: 'When the operator set it; null for a default.' }),
  },
  { $id: 'AllergyClass', additionalProperties: false },
);
export type AllergyClassView = Static<typeof AllergyClass>;
