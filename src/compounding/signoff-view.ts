import type { OrderSignoffTable } from './compounding.tables.js';
import type { ReviewCheck, SignoffKind } from './signoff.js';
import type { SignoffViewData } from './signoff.schemas.js';

/** A sign-off as the pharmacy reads it (the operator's order, the sign-off route's answer). */
export const toSignoffView = (row: OrderSignoffTable): SignoffViewData => ({
  signoff_id: row.id,
  kind: row.kind as SignoffKind,
  checked: row.checked === null ? null : (JSON.parse(row.checked) as ReviewCheck[]),
  pharmacist_id: row.pharmacist_id,
  pharmacist_name: row.pharmacist_name,
  at: row.at,
});
