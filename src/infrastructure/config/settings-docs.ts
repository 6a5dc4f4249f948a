import { SETTINGS } from './settings';
import { type Setting, SETTINGS_SECTIONS } from './settings/setting';

const MARKED_TABLE = /<!-- settings:start (.+?) -->\n[\s\S]*?<!-- settings:end -->/g;

/**
 * docs/configuration.md with the table between each `<!-- settings:start <section> -->` and
 * `<!-- settings:end -->` written from SETTINGS; the prose around them is kept. Every section
 * must have its markers once, so a setting cannot go undocumented.
 */
export function renderSettingsDocs(markdown: string): string {
  const seen: string[] = [];
  const rendered = markdown.replace(MARKED_TABLE, (_, section: string) => {
    if (!(SETTINGS_SECTIONS as readonly string[]).includes(section) || seen.includes(section)) {
      throw new Error(`docs/configuration.md: "${section}" is not a settings section, or comes twice`);
    }
    seen.push(section);
    return `<!-- settings:start ${section} -->\n${table(section)}<!-- settings:end -->`;
  });
  const missing = SETTINGS_SECTIONS.filter((section) => !seen.includes(section));
  if (missing.length > 0) throw new Error(`docs/configuration.md has no settings markers for ${missing.join(', ')}`);
  return rendered;
}

function table(section: string): string {
  const rows = (Object.entries(SETTINGS) as [string, Setting][])
    .filter(([, setting]) => setting.section === section)
    .map(([name, setting]) => {
      const fallback = setting.defaultText ?? (setting.default === undefined ? 'unset' : `\`${setting.default}\``);
      const allowed = setting.allowed + (setting.also ?? '');
      return `| \`${name}\` | ${fallback} | ${allowed} | ${setting.doc} |\n`;
    });
  return `| variable | default | allowed | what it does |\n|---|---|---|---|\n${rows.join('')}`;
}
