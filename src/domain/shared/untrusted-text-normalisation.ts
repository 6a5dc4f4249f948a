/**
 * Text from outside, as the checks read it and as Bridle stores it.
 *
 * A reader, person or model, sees through what a check that compares characters does not: a
 * zero-width space inside an address, a full-width ＠, a Cyrillic а for a Latin a, "boss [at]
 * victim [dot] example". `normaliseUntrustedText` is the one reading every address check makes
 * of untrusted text and of what goes out (src/domain/outreach/untrusted-text.ts), so that a
 * check sees what the reader sees. Its result is for checks only: it is never stored or sent.
 *
 * What is stored is the text as written, cleaned (`cleanText`): the one cleaning of text a
 * person or a model sends, wherever it enters (a chat message, a task's title and notes over
 * REST, the chat's tools or MCP, a tool call's arguments, an imported lead, a campaign's name).
 */

import { canonicalDomain } from './email-address';

/** The bidi controls: marks (ALM, LRM, RLM), embeddings and overrides (LRE…RLO), isolates (LRI…PDI). */
const BIDI_CONTROLS = '\\u061C\\u200E\\u200F\\u202A-\\u202E\\u2066-\\u2069';
const CONTROL_OR_BIDI = new RegExp(`[\\p{Cc}${BIDI_CONTROLS}]`, 'u');

/**
 * Why a one-line label is refused, or null: a control character (line breaks and tabs
 * included) or a bidi control, which would let the label break the line it is shown on or
 * show its text in another order than it is stored. The caller names the field: "title " +
 * problem. A person's content (a task's title, a campaign's name) is cleaned first
 * (cleanText), so only a line break or a tab is left to refuse there; a credential's label (a
 * token's name, an OAuth client's) is refused for any of them.
 */
export function labelProblem(text: string): string | null {
  const found = CONTROL_OR_BIDI.exec(text);
  if (!found) return null;
  const code = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `must be one line with no control or bidi characters (found ${code})`;
}

/** Line breaks other than `\n`: CR LF, CR, NEL, the line and paragraph separators. */
const OTHER_LINE_BREAKS = /\r\n?|[\u0085\u2028\u2029]/g;
/**
 * Drawn as nothing, or changing how the rest is drawn: control characters but `\n` and `\t`;
 * format characters (bidi marks, embeddings, overrides and isolates; zero-width space, word
 * joiner, soft hyphen, BOM, tag characters…) and the other default-ignorable code points (the
 * Hangul fillers, drawn as blanks; unassigned ones). Kept: ZWNJ and ZWJ, which Persian, the
 * Indic scripts and emoji sequences need to be written as intended, the variation selectors
 * (emoji and ideographic variants), the Mongolian ones and the combining grapheme joiner.
 */
const UNSEEN =
  /(?!\n|\t|\u200C|\u200D|\u034F|[\u180B-\u180D\u180F]|[\uFE00-\uFE0F]|[\u{E0100}-\u{E01EF}])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * A terminal's control sequence, whole: CSI (`ESC [ 31 m`) and OSC (`ESC ] 0;title BEL`),
 * whose parts after ESC would be shown as text (`[31m`); any other ESC goes alone (UNSEEN).
 * The classes of a CSI's parameters, intermediates and final byte do not overlap, and an OSC's
 * text stops at the next ESC or BEL, so each ESC is read once.
 */
// eslint-disable-next-line no-control-regex -- terminal control sequences are what it finds
const ESCAPE_SEQUENCE = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)?)/g;

/**
 * Text from outside as Bridle stores it and passes it on (to the model, to a tool, to a
 * list): without the characters a reader does not see but that change what they read (a
 * terminal's escape sequence whole, then UNSEEN: a right-to-left override, a zero-width space
 * inside a word), every line break as `\n`, then NFC. The same for what a person types and for what a model or
 * an import sends. Idempotent; a NUL or a lone surrogate is refused before (textProblem).
 */
export function cleanText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, '').replace(OTHER_LINE_BREAKS, '\n').replace(UNSEEN, '').normalize('NFC');
}

/** Every string of a JSON value cleaned (cleanText); keys, which schemas check, as they are. */
export function cleanValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (value === null || typeof value !== 'object' || depth >= 32) return value;
  if (Array.isArray(value)) return value.map((item) => cleanValue(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, cleanValue(field, depth + 1)]));
}

/**
 * Text that came in with an import (a lead's name from a CSV or a JSON list, often scraped),
 * as it is stored: cleaned (cleanText), line breaks and tabs as a space, blanks at the ends
 * trimmed. An import is not refused for them: nobody typed them on purpose, and a whole list
 * would stop on one scraped name.
 */
export function strippedImportedText(text: string): string {
  return cleanText(text)
    .replace(/[\n\t]+/g, ' ')
    .trim();
}

const MARKS = /\p{M}/gu;
/** Drawn as a blank (spaces, line breaks, the braille blank); NFKD has made most spaces U+0020. */
const BLANKS = /[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u2800\u3000]+/g;
/** Drawn as nothing: controls, format characters (bidi, zero-width, tags…), default-ignorables. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const TAG_RUN = /[\u{E0020}-\u{E007E}]+/gu;
const HAS_TAG = /[\u{E0000}-\u{E007F}]/u;
/**
 * A name of dotted labels (any dot UTS #46 reads as one) that is not the local part of an
 * address: started where a run of name characters starts, so a long run is read once.
 */
const NAME_RUN = /(?<![\p{L}\p{N}\p{M}-])[\p{L}\p{N}\p{M}-]+(?:[.\u3002\uFF0E\uFF61][\p{L}\p{N}\p{M}-]+)+(?![\p{L}\p{N}\p{M}@＠﹫-])/gu;
const NON_ASCII = /[^\0-\x7F]/;
/** A right-to-left override's run: shown reversed, up to its PDF, another bidi control or the line's end. */
const OVERRIDE_RUN = /\u202E([^\n\r\u2029\u202A-\u202E\u2066-\u2069]*)/g;

/**
 * Letters drawn like Latin ones (Cyrillic, Greek, Armenian, Latin variants), and marks drawn
 * like the dot and the hyphen that NFKD leaves alone. Marks drawn like `@` (＠, ﹫) and the
 * full-width, small, circled and mathematical letters are folded by NFKD itself.
 */
const LOOKALIKES: Readonly<Record<string, string>> = {
  ...pairs('аеорсухѕіјԁһԛԝӏүɡօսαονριυκχϲεıȷɑɩ', 'aeopcyxsijdhqwlygouaovpiukxceijai'),
  ...pairs('АВЕКМНОРСТХУЅІЈԚԜӀΑΒΕΖΗΙΚΜΝΟΡΤΥΧ', 'ABEKMHOPCTXYSIJQWIABEZHIKMNOPTYX'),
  ...pairs('\u3002\u00B7\u2027\u2219\u22C5\u30FB', '......'),
  ...pairs('\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212', '--------'),
};
const LOOKALIKE = new RegExp(`[${Object.keys(LOOKALIKES).join('')}]`, 'gu');

function pairs(from: string, to: string): Record<string, string> {
  return Object.fromEntries([...from].map((char, i) => [char, to[i]]));
}

/**
 * The ways an address is spelled out, in the order they are undone: dots before ats, so that
 * an at is read before the dotted domain it needs. Bracketed forms are read anywhere; bare
 * words and spaced signs only between the parts of an address, so that "Dot Cotton", "Kat
 * Attwood", "Engineer at Acme. Previously at Initech" or "at 3.30" stay as they are, while "boss at
 * victim dot example" and "boss @ victim . example" read as boss@victim.example.
 */
const SPELLED_OUT: readonly (readonly [RegExp, string])[] = [
  [/\[:\]/g, ':'],
  [/ ?[(<[{〈《「『【〔] ?(?:at|@) ?[)>\]}〉》」』】〕] ?/gi, '@'],
  [/ ?[(<[{〈《「『【〔] ?(?:dot|\.) ?[)>\]}〉》」』】〕] ?/gi, '.'],
  [/(?<=[a-z0-9]) dot (?=[a-z0-9])/gi, '.'],
  [/(?<=[a-z0-9]) \. ?(?=[a-z0-9])/gi, '.'],
  [/(?<=[a-z0-9]) slash (?=[a-z0-9])/gi, '/'],
  [/(?<=[\w.%+-])(?: ?@ ?| at )(?=(?:[a-z0-9-]+\.)+[a-z]{2})/gi, '@'],
];

/**
 * Untrusted text as an address check reads it: compatibility-folded (NFKD, which folds what
 * NFKC folds: full-width, small, circled and mathematical forms, ＠ and ﹫), without combining
 * marks, with every invisible character removed (zero-width space, joiner and non-joiner, word
 * joiner, soft hyphen, BOM, variation selectors, tag characters, bidi controls, other controls
 * and format characters), look-alike letters and dots read as the Latin ones, blanks as one
 * space, and the spelled-out forms of `@` and `.` read as the signs.
 *
 * A text may be read more than one way, and each reading is a line of the result: an
 * invisible character also read as a space (it may stand between two words, not inside one);
 * the look-alike letters also left as they are; a right-to-left override's run also reversed,
 * as it is shown; tag characters also read as the ASCII they encode, as a model reads them;
 * a domain written in Unicode (`bücher.de`, `victim。example`) also read in the canonical form
 * mail is sent to (`xn--bcher-kva.de`, canonicalDomain), so that it meets its other spellings.
 * A check finds an address if any reading shows it. Linear in the text's length.
 */
export function normaliseUntrustedText(text: string): string {
  const readings = [text];
  if (text.includes('\u202E')) readings.push(text.replace(OVERRIDE_RUN, (_, run: string) => [...run].reverse().join('')));
  if (HAS_TAG.test(text)) {
    readings.push(
      text.replace(TAG_RUN, (run) => ` ${[...run].map((char) => String.fromCodePoint(char.codePointAt(0)! - 0xe0000)).join('')} `),
    );
  }
  if (NON_ASCII.test(text)) {
    for (const reading of [...readings]) {
      const canonical = reading.replace(NAME_RUN, (name) => (NON_ASCII.test(name) ? (canonicalDomain(name) ?? name) : name));
      if (canonical !== reading) readings.push(canonical);
    }
  }
  const views = new Set<string>();
  for (const reading of readings) {
    const bare = reading.normalize('NFKD').replace(MARKS, '').replace(BLANKS, ' ');
    for (const invisible of bare.search(INVISIBLE) === -1 ? [''] : ['', ' ']) {
      const shown = bare.replace(INVISIBLE, invisible);
      views.add(shown.replace(LOOKALIKE, (char) => LOOKALIKES[char]).replace(BLANKS, ' '));
      views.add(shown.replace(BLANKS, ' '));
    }
  }
  return SPELLED_OUT.reduce((folded, [pattern, sign]) => folded.replace(pattern, sign), [...views].join('\n'));
}
