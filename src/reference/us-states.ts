/**
 * US state codes accepted for addresses: the 50 states, the District of Columbia, the inhabited
 * territories and the armed forces' postal codes (all of which a US carrier can ship to).
 */
export const US_STATES: Readonly<Record<string, string>> = Object.freeze({
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  DC: 'District of Columbia',
  AS: 'American Samoa',
  GU: 'Guam',
  MP: 'Northern Mariana Islands',
  PR: 'Puerto Rico',
  VI: 'U.S. Virgin Islands',
  AA: 'Armed Forces Americas',
  AE: 'Armed Forces Europe',
  AP: 'Armed Forces Pacific',
});

/** True for a two-letter code of US_STATES; case-sensitive (codes are upper case). */
export const isUsStateCode = (code: string): boolean => Object.hasOwn(US_STATES, code);

/** The full name of a state code (`CA` → `California`), or undefined for an unknown code. */
export const stateName = (code: string): string | undefined => (isUsStateCode(code) ? US_STATES[code] : undefined);

/** A ZIP code: 5 digits, or ZIP+4 written 12345-6789. */
export const ZIP_CODE_PATTERN = '^[0-9]{5}(-[0-9]{4})?$';
export const isZipCode = (value: string): boolean => new RegExp(ZIP_CODE_PATTERN).test(value);

/**
 * A JSON-schema pattern matching exactly the codes of US_STATES in any letter case (`ca`, `Ca`, `CA`):
 * JavaScript patterns have no inline case-insensitive flag, so each letter is a two-letter class.
 * Used in body schemas so that an unknown code is reported together with every other bad field.
 */
export const STATE_CODE_PATTERN = `^(?:${Object.keys(US_STATES)
  .map((code) =>
    code
      .split('')
      .map((letter) => `[${letter}${letter.toLowerCase()}]`)
      .join(''),
  )
  .join('|')})$`;
