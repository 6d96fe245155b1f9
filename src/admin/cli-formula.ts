import type { FormulaInput } from '../medications/formula.js';
import { FormulaBody } from '../medications/medication.schemas.js';
import { RequestValidationError, validatorCompiler } from '../contracts/validation.js';
import { invalidFields } from '../errors.js';
import { UsageError } from './cli-commands.js';

/** The longest --formula accepted (a formula of MAX_INGREDIENTS ingredients fits well within). */
export const MAX_FORMULA_FLAG_LENGTH = 20_000;

// Compiled once, with the API's own validator: the same text rules, bounds and messages as a body.
const validate = validatorCompiler({ schema: FormulaBody, method: 'POST', url: '--formula', httpPart: 'body' });

/**
 * `add-medication --formula '<json>'`: the formula's fields as the API's body takes them
 * (`{"ingredients": [...], "preparation": "sterile", ...}`; docs/compounding.md). Not JSON: usage
 * error; a field the API would refuse: the API's 400, naming it. The whole formula's rules
 * (formula.ts) are the service's, as for the API.
 */
export function parseFormulaFlag(text: string): FormulaInput {
  if (text.length > MAX_FORMULA_FLAG_LENGTH)
    throw new UsageError(`--formula must be at most ${MAX_FORMULA_FLAG_LENGTH} characters`, 'add-medication');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(
      '--formula must be a JSON object, e.g. {"ingredients": [...], "preparation": "non_sterile", ...}',
      'add-medication',
    );
  }
  const result = validate(parsed) as { value?: unknown; error?: Error };
  if (result.error instanceof RequestValidationError) throw invalidFields(result.error.details);
  if (result.error) throw result.error;
  return result.value as FormulaInput;
}
