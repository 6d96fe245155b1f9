/** Booleans are stored as 0/1 integers (better-sqlite3 does not bind JS booleans). */
export const toFlag = (value: boolean | undefined | null): number => (value ? 1 : 0);
export const fromFlag = (value: number | null | undefined): boolean => value === 1;
