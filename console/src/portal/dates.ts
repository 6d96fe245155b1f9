/**
 * Date filters: the address keeps the day picked (`2026-11-26`), the API gets instants. A day is
 * the browser's: `since` is its first moment, `until` the first moment of the next day.
 */
export function dayStart(day: string): string | undefined {
  if (!day) return undefined;
  const start = new Date(`${day}T00:00:00`);
  return Number.isNaN(start.getTime()) ? undefined : start.toISOString();
}

export function dayEnd(day: string): string | undefined {
  const start = dayStart(day);
  if (!start) return undefined;
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return end.toISOString();
}
