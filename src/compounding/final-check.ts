/**
 * When the final check may be given (issue 39, item 3; docs/compounding.md#sign-offs), by the fills
 * of the order's items: only once every item is filled, and with REQUIRE_INDEPENDENT_CHECK only by a
 * pharmacist who recorded none of them. Pure: the server's service and the console (which form to
 * offer) ask the same rules.
 */

/** An item of an order as these rules read it: its name and who recorded its fill, if it has one. */
export interface ItemFillState {
  readonly id: string;
  readonly medication: string;
  readonly fill: { readonly filled_by_id: string | null } | null;
}

/** The items without a fill, with their place in the order's `medication_requests`. */
export function unfilledItems<T extends ItemFillState>(items: readonly T[]): { index: number; item: T }[] {
  return items.flatMap((item, index) => (item.fill === null ? [{ index, item }] : []));
}

/**
 * The items whose fill `pharmacistId` recorded. A fill recorded by nobody by name (the operator
 * token, a development server's generated fill) is nobody's: it does not make anyone the same person
 * as its filler. Such a fill was made outside any pharmacist's sign-in, and the final check is then
 * the one check a person gives; refusing it would leave an order the token filled with no pharmacist
 * allowed to check it.
 */
export function filledBy<T extends ItemFillState>(items: readonly T[], pharmacistId: string): T[] {
  return items.filter((item) => item.fill !== null && item.fill.filled_by_id === pharmacistId);
}

/** `Low Dose Naltrexone (item 0194…)`: items as a message names them. */
export const namedItems = (items: readonly ItemFillState[]): string =>
  items.map((item) => `${item.medication} (item ${item.id})`).join(', ');
