/**
 * Row types of the compounding record's tables (migration 024; docs/compounding.md): an item's fill,
 * the ingredient lots it names, and the pharmacist's sign-offs of an order. Same conventions as the
 * order's tables (orders/order.tables.ts).
 */

/** What the pharmacy made for one item of an order (migration 024; docs/compounding.md#the-fill). */
export interface MedicationItemFillTable {
  id: string;
  medication_request_id: string;
  /** At most one fill per item. */
  medication_item_id: string;
  clinic_id: string;
  /** The formulary entry the item matched (null: none). */
  medication_id: string | null;
  lot_number: string;
  compounded_at: string;
  /** YYYY-MM-DD on the pharmacy's calendar, computed at the fill (medications/fill-beyond-use.ts); null for an entry without a formula. */
  beyond_use_date: string | null;
  /** The instant, for a preparation whose limit is in hours (a Category 1 CSP; migration 031). */
  beyond_use_at?: string | null;
  /** What decided the date (migration 031): usp_795, usp_797, entry or ingredient_lot; null for fills recorded before. */
  beyond_use_basis?: string | null;
  /** The ingredient lot whose expiry decided it (basis ingredient_lot). */
  beyond_use_limiting_lot?: string | null;
  /** The version of the entry's formula the fill was made from (migration 031); null without a formula, and for fills recorded before. */
  formula_version?: number | null;
  /** room | refrigerated | frozen (the entry's), null without a formula. */
  storage: string | null;
  /** 1: filled by a development server on shipping, with generated lots. */
  generated: number;
  /** Who recorded the fill: a staff member's id and name (null for the operator token or the sandbox). */
  filled_by_id: string | null;
  filled_by_name: string | null;
  created_at: string;
}

/** One ingredient lot a fill names (migration 024). */
export interface FillIngredientLotTable {
  id: string;
  fill_id: string;
  medication_request_id: string;
  clinic_id: string;
  position: number;
  ingredient: string;
  lot_number: string;
  /** YYYY-MM-DD */
  expires_on: string;
}

/** A pharmacist's sign-off of an order (migration 024): `prescription_review` or `final_check` (`product_check` until migration 033), at most one of each. */
export interface OrderSignoffTable {
  id: string;
  medication_request_id: string;
  kind: string;
  /** What a review checked, JSON text (`["allergies","duplicate_therapy","dose"]`; migration 033); null for a final check and for older reviews. */
  checked: string | null;
  pharmacist_id: string;
  pharmacist_name: string;
  at: string;
}

export interface CompoundingTables {
  medication_item_fills: MedicationItemFillTable;
  fill_ingredient_lots: FillIngredientLotTable;
  order_signoffs: OrderSignoffTable;
}
