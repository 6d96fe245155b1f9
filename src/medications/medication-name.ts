/** Formulary matching ignores case, surrounding spaces and repeated inner spaces. */
export const medicationKey = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();
