import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ALLERGY_CLASSES_BEGIN_MARKER,
  ALLERGY_CLASSES_PAGE,
  withAllergyClassesSection,
} from '../../src/patients/allergy-classes-docs.js';
import { DEFAULT_ALLERGY_CLASSES } from '../../src/patients/allergy-classes.js';

const PAGE = path.resolve(import.meta.dirname, '../..', ALLERGY_CLASSES_PAGE);

describe('docs/compounding.md’s table of allergy classes, generated from the defaults', () => {
  it('when the page is read, then its table is exactly what the defaults write (else: npm run docs:allergy-classes)', () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(page).toContain(ALLERGY_CLASSES_BEGIN_MARKER);
    expect(page, `${ALLERGY_CLASSES_PAGE} is stale: run npm run docs:allergy-classes`).toBe(withAllergyClassesSection(page));
    for (const c of DEFAULT_ALLERGY_CLASSES) expect(page).toContain(`| \`${c.code}\` | ${c.label} |`);
  });
});
