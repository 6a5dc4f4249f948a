import fc from 'fast-check';
import { validateToolArguments } from '../../../src/domain/agent/tool-call-validation';
import { validMessage } from '../../../src/domain/chat/conversation';
import { draftCampaign } from '../../../src/domain/outreach/campaign';
import { draftLead } from '../../../src/domain/outreach/lead';
import { cleanText } from '../../../src/domain/shared/untrusted-text-normalisation';
import { changeTask, draftTask } from '../../../src/domain/todo/task';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import { aTask } from '../../factories/tasks';

/**
 * Text a person or a model sends is cleaned the same way wherever it enters: no control
 * character but line breaks and tabs, no bidi control (marks, embeddings, overrides,
 * isolates), no invisible character (zero-width space, word joiner, soft hyphen, BOM, tag
 * characters, Hangul fillers…), line breaks as `\n`, and NFC. Each class is its own generator.
 */

const range = (from: number, to: number) => fc.integer({ min: from, max: to }).map((code) => String.fromCodePoint(code));
const CLASSES: Readonly<Record<string, fc.Arbitrary<string>>> = {
  'C0 controls': range(0x01, 0x1f).filter((char) => char !== '\n' && char !== '\t' && char !== '\r'),
  'DEL and C1 controls': range(0x7f, 0x9f).filter((char) => char !== '\u0085'),
  'ESC sequences': fc.constantFrom('\u001b[31m', '\u001b]0;title\u0007', '\u001b[2J'),
  'bidi controls': fc.constantFrom(
    '\u061C',
    '\u200E',
    '\u200F',
    '\u202A',
    '\u202B',
    '\u202C',
    '\u202D',
    '\u202E',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
  ),
  'zero-width and other invisible format characters': fc.constantFrom(
    '\u200B',
    '\u2060',
    '\u2061',
    '\u2062',
    '\u2063',
    '\u2064',
    '\uFEFF',
    '\u00AD',
    '\u180E',
    '\uFFF9',
    '\uFFFA',
    '\uFFFB',
  ),
  'tag characters': range(0xe0000, 0xe007f),
  'Hangul fillers and other default-ignorables': fc.constantFrom(
    '\u115F',
    '\u1160',
    '\u3164',
    '\uFFA0',
    '\u17B4',
    '\u2065',
    '\uFFF0',
    '\u{1D173}',
  ),
};
const SEEN = /[^\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]|\n|\t|\u200C|\u200D|\uFE0F/u;

/** Words people write, in scripts that need ZWJ and ZWNJ, emoji, accents. */
const words = fc.array(
  fc.constantFrom(
    'Buy',
    'milk',
    'José',
    'Zoë',
    '買牛奶',
    'می\u200Cخواهم',
    'Family 👨\u200D👩\u200D👧',
    '🎉',
    '❤\uFE0F',
    'at 10:30',
    'e\u0301',
  ),
  { minLength: 1, maxLength: 5 },
);

/** `base` with characters of `marks` put at random places. */
const sprinkled = (marks: fc.Arbitrary<string>) =>
  fc.tuple(words, fc.array(fc.tuple(fc.nat(), marks), { minLength: 1, maxLength: 6 })).map(([parts, places]) => {
    const chars = [...parts.join(' ')];
    for (const [at, mark] of places) chars.splice(at % (chars.length + 1), 0, mark);
    return { text: chars.join(''), visible: parts.join(' ') };
  });

/** Nothing of the classes is left; what the person sees is. */
function expectClean(cleaned: string, visible: string): void {
  for (const char of cleaned) expect(SEEN.test(char)).toBe(true);
  expect(cleaned.normalize('NFC')).toBe(cleaned);
  for (const word of visible.normalize('NFC').split(' ')) expect(cleaned).toContain(word);
}

describe('cleanText', () => {
  it.each(Object.entries(CLASSES))('removes %s, keeping the words around them', (_, marks) => {
    fc.assert(
      fc.property(sprinkled(marks), ({ text, visible }) => {
        const cleaned = cleanText(text);
        expectClean(cleaned, visible);
        expect(cleanText(cleaned)).toBe(cleaned);
      }),
    );
  });

  it('keeps line breaks and tabs, every line break as \\n', () => {
    expect(cleanText('a\r\nb\rc\u0085d\u2028e\u2029f\tg\nh')).toBe('a\nb\nc\nd\ne\nf\tg\nh');
  });
});

/** Every class at once, for the entry points. */
const hostile = sprinkled(fc.oneof(...Object.values(CLASSES)));
const schemas = new AjvSchemaValidator();

describe('where text enters, it is cleaned the same way', () => {
  it('a chat message', () => {
    fc.assert(fc.property(hostile, ({ text, visible }) => expectClean(validMessage(text), visible)));
  });

  it("a task's title and description, made or changed", () => {
    fc.assert(
      fc.property(hostile, ({ text, visible }) => {
        const oneLine = text.replace(/[\n\t\r\u0085\u2028\u2029\v\f]/g, '');
        const draft = draftTask({ title: oneLine, description: text });
        expectClean(draft.title, visible);
        expectClean(draft.description!, visible);
        const changed = changeTask(aTask(), { title: oneLine, description: text }, new Date());
        expectClean(changed.title, visible);
      }),
    );
  });

  it("a tool call's arguments, from the chat's model or an MCP client", () => {
    fc.assert(
      fc.property(hostile, ({ text, visible }) => {
        const oneLine = text.replace(/[\n\t\r\u0085\u2028\u2029\v\f]/g, '');
        const validation = validateToolArguments(TODO_TOOLS, 'add_task', { title: oneLine, description: text }, schemas);
        expect(validation.ok).toBe(true);
        const args = (validation as unknown as { arguments: { title: string; description: string } }).arguments;
        expectClean(args.title, visible);
        expectClean(args.description, visible);
      }),
    );
  });

  it("an imported lead's name, and a campaign's name", () => {
    fc.assert(
      fc.property(hostile, ({ text, visible }) => {
        const lead = draftLead({ name: text, linkedinUrl: 'https://www.linkedin.com/in/ann/' });
        expectClean(lead.name, visible.replace(/\s+/g, ' '));
        const oneLine = text.replace(/[\n\t\r\u0085\u2028\u2029\v\f]/g, '');
        expectClean(draftCampaign({ name: oneLine }).name, visible);
      }),
    );
  });
});
