import { collapseSpaces } from '../shared/text.js';

/** Formulary matching ignores case, surrounding spaces and repeated inner spaces. */
export const medicationKey = (name: string): string => collapseSpaces(name).toLowerCase();
