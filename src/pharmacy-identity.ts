/**
 * The pharmacy's name, address and phone, as its labels print them (PHARMACY_NAME and the
 * PHARMACY_ADDRESS_* variables: docs/configuration.md, declared in config/pharmacy.settings.ts).
 * Parsed once by the configuration; pure.
 */

export interface PharmacyIdentity {
  readonly name: string;
  readonly address_line_1: string;
  readonly address_line_2: string | null;
  readonly city: string;
  readonly state: string;
  readonly postal_code: string;
  readonly phone: string | null;
}

/** What a development server prints on its labels when nothing is set: a made-up pharmacy, marked as such. */
export const DEVELOPMENT_PHARMACY: PharmacyIdentity = Object.freeze({
  name: 'Development Compounding Pharmacy',
  address_line_1: '100 Example Street',
  address_line_2: null,
  city: 'Springfield',
  state: 'IL',
  postal_code: '62701',
  phone: '(555) 010-0100',
});

const VARIABLES = {
  name: 'PHARMACY_NAME',
  address_line_1: 'PHARMACY_ADDRESS_LINE1',
  address_line_2: 'PHARMACY_ADDRESS_LINE2',
  city: 'PHARMACY_CITY',
  state: 'PHARMACY_STATE',
  postal_code: 'PHARMACY_POSTAL_CODE',
  phone: 'PHARMACY_PHONE',
} as const;

const REQUIRED = ['name', 'address_line_1', 'city', 'state', 'postal_code'] as const;
const MAX_LENGTH = 100;
// Printable text only: no control, bidi or zero-width characters on a label.
const PRINTABLE = /^[^\p{Cc}\p{Cf}]+$/u;

/** The variables as configuration read them: trimmed, undefined when unset or empty. */
export type PharmacyVariables = Readonly<Record<(typeof VARIABLES)[keyof typeof VARIABLES], string | undefined>>;

/**
 * The pharmacy of the labels: the variables when PHARMACY_NAME is set (then its address is
 * required); else, in development, DEVELOPMENT_PHARMACY, and in production null (the label says
 * the setting is missing). Every bad variable is pushed onto `problems`.
 */
export function parsePharmacyIdentity(
  variables: PharmacyVariables,
  environment: 'development' | 'production',
  problems: string[],
): PharmacyIdentity | null {
  const read = (key: keyof typeof VARIABLES): string | null => variables[VARIABLES[key]] ?? null;
  if (read('name') === null) return environment === 'development' ? DEVELOPMENT_PHARMACY : null;

  const found = Object.fromEntries(
    (Object.keys(VARIABLES) as (keyof typeof VARIABLES)[]).map((key) => [key, read(key)]),
  ) as Record<keyof typeof VARIABLES, string | null>;
  const before = problems.length;
  for (const key of REQUIRED) {
    if (found[key] === null) problems.push(`${VARIABLES[key]} is required when PHARMACY_NAME is set`);
  }
  for (const [key, value] of Object.entries(found) as [keyof typeof VARIABLES, string | null][]) {
    if (value !== null && (value.length > MAX_LENGTH || !PRINTABLE.test(value))) {
      problems.push(`${VARIABLES[key]} must be at most ${MAX_LENGTH} printable characters`);
    }
  }
  if (found.state !== null && !/^[A-Z]{2}$/.test(found.state)) {
    problems.push(`PHARMACY_STATE must be a two-letter state code in capitals (e.g. NY), got "${found.state.slice(0, 20)}"`);
  }
  if (found.postal_code !== null && !/^\d{5}(-\d{4})?$/.test(found.postal_code)) {
    problems.push(`PHARMACY_POSTAL_CODE must be a ZIP code (12345 or 12345-6789), got "${found.postal_code.slice(0, 20)}"`);
  }
  if (problems.length > before) return null;
  return Object.freeze({
    name: found.name ?? '',
    address_line_1: found.address_line_1 ?? '',
    address_line_2: found.address_line_2,
    city: found.city ?? '',
    state: found.state ?? '',
    postal_code: found.postal_code ?? '',
    phone: found.phone,
  });
}
