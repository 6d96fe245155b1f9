import { Type } from '@sinclair/typebox';
import { LOT_NUMBER_MAX_LENGTH, LOT_NUMBER_PATTERN } from './lot-pattern.js';

export { LOT_NUMBER_MAX_LENGTH };

/**
 * A lot number as the fill records it and a recall looks it up (docs/compounding.md#recall): 1 to 40
 * letters, digits, hyphens, dots or slashes, starting with a letter or digit (lot-pattern.ts), compared whatever its case. The
 * fill's body and the recall's path and query share it: a value no fill can hold is a 400 naming the
 * field, never a query.
 */
export const LotNumber = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: LOT_NUMBER_MAX_LENGTH,
    pattern: `^${LOT_NUMBER_PATTERN}$`,
    description,
    'x-message': `must be 1 to ${LOT_NUMBER_MAX_LENGTH} letters, digits, hyphens, dots or slashes, starting with a letter or digit`,
    examples: ['24-117'],
  });
