/** The service's clock; tests substitute a fake one. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** Timestamps are stored as ISO-8601 UTC text: sortable as strings in both dialects. */
export const isoNow = (clock: Clock): string => clock().toISOString();

/** Booleans are stored as 0/1 integers (better-sqlite3 does not bind JS booleans). */
export const toFlag = (value: boolean | undefined | null): number => (value ? 1 : 0);
export const fromFlag = (value: number | null | undefined): boolean => value === 1;

/** Money is stored as integer cents and shown as dollars with cents (32.44). */
export const toCents = (dollars: number): number => Math.round(dollars * 100);
export const fromCents = (cents: number): number => cents / 100;
