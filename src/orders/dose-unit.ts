/**
 * Derives a medication item's unit of measure from its dose when the partner omits it (the spec:
 * "a dose of a number followed by mg gives mg"). Pure; returns null when nothing is recognised, and
 * the order is never refused for that.
 */

/** Spellings (lower case, dots removed) → the unit we store. */
const UNITS: Readonly<Record<string, string>> = {
  mg: 'mg',
  milligram: 'mg',
  milligrams: 'mg',
  mgs: 'mg',
  mcg: 'mcg',
  µg: 'mcg',
  μg: 'mcg',
  ug: 'mcg',
  microgram: 'mcg',
  micrograms: 'mcg',
  g: 'g',
  gm: 'g',
  gms: 'g',
  gram: 'g',
  grams: 'g',
  kg: 'kg',
  ml: 'mL',
  milliliter: 'mL',
  milliliters: 'mL',
  millilitre: 'mL',
  millilitres: 'mL',
  cc: 'mL',
  l: 'L',
  liter: 'L',
  liters: 'L',
  litre: 'L',
  litres: 'L',
  iu: 'IU',
  meq: 'mEq',
  u: 'units',
  unit: 'units',
  units: 'units',
  tab: 'tablets',
  tabs: 'tablets',
  tablet: 'tablets',
  tablets: 'tablets',
  cap: 'capsules',
  caps: 'capsules',
  capsule: 'capsules',
  capsules: 'capsules',
  troche: 'troches',
  troches: 'troches',
  drop: 'drops',
  drops: 'drops',
  gtt: 'drops',
  gtts: 'drops',
  puff: 'puffs',
  puffs: 'puffs',
  spray: 'sprays',
  sprays: 'sprays',
  patch: 'patches',
  patches: 'patches',
  click: 'clicks',
  clicks: 'clicks',
  pump: 'pumps',
  pumps: 'pumps',
  suppository: 'suppositories',
  suppositories: 'suppositories',
  chew: 'chews',
  chews: 'chews',
  treat: 'treats',
  treats: 'treats',
  '%': '%',
};

/** A number (1, 0.5, .5, 1,000, 2.5-5) then a unit, optionally per another unit (mg/mL, mg/kg). */
const DOSE =
  /^\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:\s*(?:-|to)\s*(?:\d[\d,]*(?:\.\d+)?|\.\d+))?\s*(%|[a-zµμ.]+)(?:\s*(?:\/|per\s)\s*([a-z.]+))?/i;

export function deriveUnitOfMeasure(dose: string): string | null {
  const match = DOSE.exec(dose);
  if (!match) return null;
  const unit = canonical(match[1]);
  if (unit === null) return null;
  if (match[2] === undefined) return unit;
  const per = canonical(match[2]);
  return per === null ? unit : `${unit}/${per}`;
}

function canonical(word: string | undefined): string | null {
  if (word === undefined) return null;
  const key = word.toLowerCase().replace(/\./g, '');
  return Object.hasOwn(UNITS, key) ? (UNITS[key] ?? null) : null;
}
