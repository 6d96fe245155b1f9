// `npm run docs:allergy-classes` writes docs/compounding.md's table of the default allergy classes
// from src/patients/allergy-classes.ts, between the page's two markers, leaving the rest of
// the page as it is. `--check` writes nothing and fails when the page differs (the suite's
// test/patients/allergy-classes-docs.test.ts does the same on the sources). The npm script compiles src/
// first (predocs:allergy-classes). Run from the package folder (npm does).
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { ALLERGY_CLASSES_PAGE, withAllergyClassesSection } from '../dist/patients/allergy-classes-docs.js';

const page = readFileSync(ALLERGY_CLASSES_PAGE, 'utf8');
const generated = withAllergyClassesSection(page);
if (process.argv.includes('--check')) {
  if (generated !== page) {
    process.stderr.write(
      `${ALLERGY_CLASSES_PAGE} differs from src/patients/allergy-classes.ts: run npm run docs:allergy-classes\n`,
    );
    process.exit(1);
  }
} else if (generated !== page) {
  writeFileSync(ALLERGY_CLASSES_PAGE, generated);
  process.stdout.write(`${ALLERGY_CLASSES_PAGE}: the allergy classes table was rewritten\n`);
} else {
  process.stdout.write(`${ALLERGY_CLASSES_PAGE} is current\n`);
}
