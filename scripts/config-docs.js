// `npm run docs:config` writes docs/configuration.md's tables of variables from the settings'
// declarations (src/config/*.settings.ts), between the page's two markers, leaving the rest of the
// page as it is. `--check` writes nothing and fails when the page differs (the suite's
// test/config/settings-docs.test.ts does the same on the sources). The npm script compiles src/
// first (predocs:config). Run from the package folder (npm does).
import { readFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { DOCS_PAGE, withSettingsSection } from '../dist/config/settings-docs.js';

const page = readFileSync(DOCS_PAGE, 'utf8');
const generated = withSettingsSection(page);
if (process.argv.includes('--check')) {
  if (generated !== page) {
    process.stderr.write(`${DOCS_PAGE} differs from the settings' declarations: run npm run docs:config\n`);
    process.exit(1);
  }
} else if (generated !== page) {
  writeFileSync(DOCS_PAGE, generated);
  process.stdout.write(`${DOCS_PAGE}: the tables of variables were rewritten\n`);
} else {
  process.stdout.write(`${DOCS_PAGE} is current\n`);
}
