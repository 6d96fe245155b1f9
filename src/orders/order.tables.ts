/** Row types of the order tables (filled in by the orders feature). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface OrderTables {}
