import type { ReadContext } from '../context.js';
import { medicationKey } from '../medications/medication-name.js';
import { checkText } from '../shared/text.js';
import { findFormularyEntries } from '../medications/medication.service.js';
import { checkFormulary, type Problem } from './order-rules.js';
import { ORDER_LIMITS } from './order.schemas.js';

/**
 * The formulary misses of a medication order whose body failed its schema (POST
 * /api/external/medication-order), so that its answer names them beside the schema's problems and a
 * partner fixes the whole order in one round trip. Only what the schema would accept is looked up
 * (an array of at most 20 items, names of 1 to 200 characters): a refused body costs one bounded query.
 */
export async function formularyProblemOfBody(ctx: ReadContext, clinicId: string, body: unknown): Promise<Problem | null> {
  const list = (body as { medication_requests?: unknown } | null)?.medication_requests;
  if (!Array.isArray(list) || list.length > ORDER_LIMITS.maxItems) return null;
  const items = list.map((item: unknown) => {
    const name = (item as { medication?: unknown } | null)?.medication;
    return { medication: typeof name === 'string' && lookable(name) ? name : undefined };
  });
  const keys = [...new Set(items.flatMap((item) => (item.medication === undefined ? [] : [medicationKey(item.medication)])))];
  if (keys.length === 0) return null;
  const entries = await findFormularyEntries(ctx, clinicId, keys);
  return checkFormulary(items, new Set(entries.map((entry) => entry.name_key)));
}

/**
 * A name the database can be asked about: within its length and the schema's text rules for a name
 * (shared/text.ts), which refuse what PostgreSQL cannot even compare (a NUL, a lone surrogate) before
 * any query, so that the two databases answer alike.
 */
function lookable(name: string): boolean {
  return /\S/.test(name) && name.length <= ORDER_LIMITS.medication && checkText('name', name).problem === null;
}
