/** Optional free text: trimmed, and blank (or absent) stored as null. */
export const blankToNull = (value: string | undefined | null): string | null => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
};
