import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { oneOf, setting, text, wholeNumber } from '../../src/config/setting.js';
import { BEGIN_MARKER, DOCS_PAGE, END_MARKER, settingsSection, withSettingsSection } from '../../src/config/settings-docs.js';
import { SETTING_GROUPS, SETTINGS } from '../../src/config/settings.js';

const PAGE = path.resolve(import.meta.dirname, '../..', DOCS_PAGE);

describe('docs/configuration.md, generated from the declarations', () => {
  it('when the page is read, then its tables of variables are exactly what the declarations write (else: npm run docs:config)', () => {
    const page = readFileSync(PAGE, 'utf8');
    expect(page).toContain(BEGIN_MARKER);
    expect(page, `${DOCS_PAGE} is stale: run npm run docs:config`).toBe(withSettingsSection(page));
    for (const name of Object.keys(SETTINGS)) expect(page).toContain(`| \`${name}\` |`);
  });

  it('when the section is rewritten, then the hand-written prose around the markers is kept', () => {
    const page = `# Title\n\nProse before.\n\n${BEGIN_MARKER}\nold table\n${END_MARKER}\n\nProse after.\n`;
    const rewritten = withSettingsSection(page, '\nnew table\n');
    expect(rewritten).toBe(`# Title\n\nProse before.\n\n${BEGIN_MARKER}\nnew table\n${END_MARKER}\n\nProse after.\n`);
    expect(() => withSettingsSection('# No markers\n')).toThrow(/must hold the markers/);
  });

  it('when a group is written, then each variable has its default per environment, its bounds or values, and its sentence', () => {
    const section = settingsSection([
      {
        title: 'Example',
        settings: {
          EXAMPLE_LIMIT: setting({ schema: wholeNumber(1, 50), default: { development: 5, production: 2 }, doc: 'How many.' }),
          EXAMPLE_MODE: setting({ schema: oneOf(['fast', 'safe']), default: 'safe', doc: 'Which way | or the other.' }),
        },
      },
    ]);
    expect(section).toContain('### Example');
    expect(section).toContain('| `EXAMPLE_LIMIT` | `5` in development, `2` in production | `1`–`50` | How many. |');
    expect(section).toContain('| `EXAMPLE_MODE` | `safe` | `fast`, `safe` | Which way \\| or the other. |');
  });

  it('when a text setting does not say what it accepts, then no table can be written', () => {
    const settings = { EXAMPLE_TEXT: setting({ schema: text(), doc: 'Some text.' }) };
    expect(() => settingsSection([{ title: 'Example', settings }])).toThrow(/says what it accepts/);
  });
});

describe('the declarations', () => {
  it('when the groups are gathered, then no variable is declared in two of them', () => {
    const declared = SETTING_GROUPS.flatMap((group) => Object.keys(group.settings));
    expect(new Set(declared).size).toBe(declared.length);
    expect(Object.keys(SETTINGS)).toEqual(declared);
  });

  it('when a setting is declared, then its name is an UPPER_SNAKE variable and its documentation is a sentence', () => {
    for (const [name, declaration] of Object.entries(SETTINGS)) {
      expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(declaration.doc, name).toMatch(/^\S.{10,}[.)]$/s);
    }
  });
});
