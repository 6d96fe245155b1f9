import { Type } from '@sinclair/typebox';

/**
 * A lot number as the fill records it and a recall looks it up (docs/compounding.md): 1 to 40
 * characters of plain text (no control or bidirectional characters: contracts/validation.ts applies
 * the text rules to every string), compared exactly. A value longer than any fill can hold is a 400
 * naming the field, never a query.
 */
export const LOT_NUMBER_MAX_LENGTH = 40;

export const LotNumber = (description: string) => Type.String({ minLength: 1, maxLength: LOT_NUMBER_MAX_LENGTH, description });
