import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderSettingsDocs } from '../../../src/infrastructure/config/settings-docs';
import { SETTINGS } from '../../../src/infrastructure/config/settings';

const docs = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'configuration.md'), 'utf8');

describe(renderSettingsDocs.name, () => {
  it('is what docs/configuration.md holds: run `npm run config:docs` after changing a setting', () => {
    expect(docs).toBe(renderSettingsDocs(docs));
  });

  it('documents every setting loadConfig reads, with its bounds as the schema checks them', () => {
    for (const name of Object.keys(SETTINGS)) expect(docs).toContain(`| \`${name}\` |`);
    expect(docs).toContain('| `PORT` | `3000` | 0–65 535 |');
  });

  it('rewrites only the tables between the markers, and refuses a file without a section’s markers', () => {
    const stale = docs.replace('| `PORT` | `3000` |', '| `PORT` | `8080` |');
    expect(stale).not.toBe(docs);
    expect(renderSettingsDocs(stale)).toBe(docs);
    expect(renderSettingsDocs(`${docs}\nA new paragraph.\n`)).toBe(`${docs}\nA new paragraph.\n`);
    expect(() => renderSettingsDocs(docs.replace('<!-- settings:start Database -->', ''))).toThrow(/no settings markers for Database/);
  });
});
