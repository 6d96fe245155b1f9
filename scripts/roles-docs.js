// `npm run docs:roles` writes docs/console.md's roles table from the table of who may call each
// operator route (src/staff/operator-roles.ts), between the page's two markers, leaving the rest of
// the page as it is. `--check` writes nothing and fails when the page differs (the suite's
// test/staff/operator-roles.test.ts does the same on the sources). The npm script compiles src/ first
// (predocs:roles). Run from the package folder (npm does).
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { ROLES_PAGE, withRolesSection } from '../dist/staff/roles-docs.js';

const page = readFileSync(ROLES_PAGE, 'utf8');
const generated = withRolesSection(page);
if (process.argv.includes('--check')) {
  if (generated !== page) {
    process.stderr.write(`${ROLES_PAGE} differs from src/staff/operator-roles.ts: run npm run docs:roles\n`);
    process.exit(1);
  }
} else if (generated !== page) {
  writeFileSync(ROLES_PAGE, generated);
  process.stdout.write(`${ROLES_PAGE}: the roles table was rewritten\n`);
} else {
  process.stdout.write(`${ROLES_PAGE} is current\n`);
}
