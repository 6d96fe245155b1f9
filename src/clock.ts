/** The service's clock; tests substitute a fake one (`TestApp.start({ clock })`). */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** Now, as stored: ISO-8601 UTC text (sortable as strings in both dialects). */
export const isoNow = (clock: Clock): string => clock().toISOString();
