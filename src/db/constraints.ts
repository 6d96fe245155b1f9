/**
 * Translates the two drivers' constraint violations into one vocabulary, so that services can
 * turn a lost race (two inserts of the same unique key) into a domain error instead of a 500.
 */
export type ConstraintViolation = 'unique' | 'foreign_key';

export function constraintViolation(error: unknown): ConstraintViolation | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = (error as { code?: unknown }).code;
  // PostgreSQL SQLSTATE codes.
  if (code === '23505') return 'unique';
  if (code === '23503') return 'foreign_key';
  // better-sqlite3 extended result codes.
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'unique';
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return 'foreign_key';
  return null;
}
