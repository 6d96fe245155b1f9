/**
 * Lists of durations written for people (`0,5s,5m,30m,2h`), as configuration takes them. Pure.
 */

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DAY_MS = 86_400_000;

/**
 * Parses `0,500ms,5s,5m,2h,1d` into milliseconds (a bare number is milliseconds). Returns the
 * problem as a phrase (`has an invalid delay "5 minutes" …`) when the text is not such a list of
 * 1 to `maxItems` durations, each at most `maxDays` days.
 */
export function parseDurationList(text: string, options: { maxItems: number; maxDays: number }): number[] | string {
  const parts = text.split(',').map((part) => part.trim());
  if (parts.length > options.maxItems) return `must list between 1 and ${options.maxItems} delays`;
  const delays: number[] = [];
  for (const part of parts) {
    const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(part);
    const unit = UNIT_MS[match?.[2] ?? 'ms'];
    if (!match?.[1] || unit === undefined) return `has an invalid delay "${part}" (use e.g. 0, 500ms, 5s, 5m, 2h, 1d)`;
    const ms = Math.round(Number(match[1]) * unit);
    if (ms > options.maxDays * DAY_MS) return `has a delay over ${options.maxDays} days ("${part}")`;
    delays.push(ms);
  }
  return delays;
}
