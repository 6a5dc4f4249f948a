import fc from 'fast-check';
import { maskSecrets, REDACTED } from '../../../src/domain/audit/redaction';
import { maskQuoted } from '../../../src/domain/agent/clarification';
import { normalizeEmail } from '../../../src/domain/identity/user';
import { firstNameOf, fillTemplate, PLACEHOLDER_FALLBACK } from '../../../src/domain/outreach/brief';
import { tidy, withoutPriority } from '../../../src/infrastructure/llm/offline/phrases';

/**
 * The patterns rewritten to run in linear time find what their quadratic originals
 * found. Each original is kept here, as it was, as the oracle; texts are built from the pieces
 * each pattern looks for, short enough for the originals to run fast.
 */
const textOf = (pieces: readonly string[], maxLength = 30) =>
  fc.array(fc.constantFrom(...pieces), { maxLength }).map((parts) => parts.join(''));

const OLD_SECRET_SHAPES: readonly RegExp[] = [
  /\b[Bb]earer\s+[A-Za-z0-9._~+/-]{8,}=*/g,
  /\bBasic\s+[A-Za-z0-9+/]{8,}=*/g,
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  /\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{16,}/g,
  /\bbridle_(?:pat|oat|ort)_[A-Za-z0-9_-]{16,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  /\b(?:li_at|JSESSIONID|session(?:id)?|sid)=[^;\s]{6,}/gi,
  /(?<=[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]+(?=@)/gi,
];
const OLD_ENDINGS = ['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'authorization', 'cookie', 'cookies', 'session'];
const OLD_SECRET_ASSIGNMENT = new RegExp(
  `(["']?[\\w-]*(?:${[...OLD_ENDINGS, 'credential', 'credentials', 'privatekey', 'signature'].map((ending) => ending.split('').join('[-_]?')).join('|')})["']?\\s*[:=]\\s*)` +
    `("(?:[^"\\\\]|\\\\.)*"?|'(?:[^'\\\\]|\\\\.)*'?|[^\\s,;&}\\]]+)`,
  'gi',
);

function oldMaskSecrets(text: string): string {
  const shapesMasked = OLD_SECRET_SHAPES.reduce((masked, shape) => masked.replace(shape, REDACTED), text);
  return shapesMasked.replace(OLD_SECRET_ASSIGNMENT, (_match, assignment: string, value: string) => {
    if (value.replace(/^["']/, '').startsWith(REDACTED.slice(0, -1))) return `${assignment}${value}`;
    const quote = value[0] === '"' || value[0] === "'" ? value[0] : '';
    return `${assignment}${quote}${REDACTED}${quote}`;
  });
}

describe('patterns rewritten to run in linear time', () => {
  it('maskSecrets masks what the redaction it replaces masked', () => {
    const pieces = [
      ...['eyJ', 'eyJhbGciOi', 'abcde', 'x', '5', '-', '_', '.', ' ', '\n', '=', ':', '"', "'", '\\', ',', ';', '}', ']', '@', '/', '//'],
      ...['password', 'pass_word', 'Pass-Word', 'api_key', 'TOKEN', 'db_secret', 'authorization', 'cookies', 'privatekey'],
      ...['Bearer ', 'Basic ', 'sk-', 'sid=', 'session=', 'AIza', 'ghp_', 'bridle_pat_', 'xoxb-', 'AKIA', 'ABCDEFGHIJKLMNOP'],
      ...['https://', 'postgres://u', '-----BEGIN PRIVATE KEY-----', '-----END PRIVATE KEY-----', 'abcdefghijklmnopqrstuvwxyz0123'],
      ...['eyJhbGciOi.abcdefg.', 'eyJhbGciOi.eyJzdWIi.sig', 'Bearer abcdefgh', 'password="a b"', 'https://u:p@h'],
    ];
    fc.assert(
      fc.property(textOf(pieces), (text) => {
        expect(maskSecrets(text)).toBe(oldMaskSecrets(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('maskQuoted tells a question from a quoted example as before', () => {
    const QUOTED = /(^|[\s(:])['"‘“].*?['"’”](?=[\s.,;:!?)]|$)/gu;
    const pieces = ["'", '"', '‘', '’', '“', '”', ' ', '\n', '(', ':', '.', '?', 'what', 's', ')', '!'];
    fc.assert(
      fc.property(textOf(pieces), (text) => {
        const masked = maskQuoted(text);
        expect(masked).toHaveLength(text.length);
        expect(masked.includes('?')).toBe(text.replace(QUOTED, '$1').includes('?'));
      }),
      { numRuns: 3000 },
    );
  });

  it('an account email is accepted as before', () => {
    const USER_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
    const accepted = (text: string) => {
      try {
        normalizeEmail(text);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(textOf(['a', 'B', '.', '..', '@', ' ', ',', '<', '"', '-', 'x.y']), (text) => {
        const email = text.trim().toLowerCase();
        expect(accepted(text)).toBe(USER_EMAIL.test(email));
      }),
      { numRuns: 3000 },
    );
  });

  it("a lead's first name and a template's placeholders are read as before", () => {
    const firstWord = (name: string) => /[\p{L}\p{M}][\p{L}\p{M}\p{N}'’.-]*/u.exec(name)?.[0].replace(/['’.-]+$/u, '');
    const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
    const values = { ...PLACEHOLDER_FALLBACK, firstName: 'Ada', senderName: 'Sam' };
    fc.assert(
      fc.property(textOf(['Ada', 'é', '7', "'", '’', '.', '-', ' ', '(', '{{', '}}', 'firstName', 'senderName', 'x', '\n']), (text) => {
        expect(firstNameOf(text)).toBe(firstWord(text)?.slice(0, 60) || PLACEHOLDER_FALLBACK.firstName);
        expect(fillTemplate(text, values)).toBe(text.replace(PLACEHOLDER, (_, name: string) => values[name as keyof typeof values] ?? ''));
      }),
      { numRuns: 3000 },
    );
  });

  it('the offline model tidies a sentence and finds its priority as before', () => {
    const TRAILING_PUNCTUATION = /[\s.,;:!?…]+$/;
    const TRAILING_COURTESY = /[,\s]+(?:please|pls|plz|thanks|thank you|thx)$/i;
    const oldTidy = (sentence: string) => {
      let text = sentence.replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim();
      let previous;
      do {
        previous = text;
        text = text.replace(TRAILING_PUNCTUATION, '').replace(TRAILING_COURTESY, '');
      } while (text !== previous);
      return text;
    };
    const MARKERS = [
      /[\s,;(-]*\b(?:with |at |as |in )?(?:a |an )?(?:very |really )?(high|highest|top|medium|normal|mid|low|lowest)[- ]priority\b\)?/i,
      /^(?:an? )?(?:very |really |super )?(urgent|important)\b[\s:,-]*/i,
      /[\s,;:(-]+(?:it'?s |it is |this is |that'?s )?(?:very |really |super )?(urgent|important|asap)\)?$/i,
    ];
    const oldPriority = (text: string) => {
      for (const marker of MARKERS) {
        const found = marker.exec(text);
        if (found) return (text.slice(0, found.index) + ' ' + text.slice(found.index + found[0].length)).replace(/\s+/g, ' ').trim();
      }
      return text;
    };
    const pieces = [
      'buy milk',
      ' ',
      ',',
      '.',
      '!',
      '…',
      ';',
      '(',
      ')',
      '-',
      'please',
      'thanks',
      'high',
      ' priority',
      'urgent',
      'it is ',
      'a ',
    ];
    fc.assert(
      fc.property(textOf(pieces), (text) => {
        expect(tidy(text)).toBe(oldTidy(text));
        expect(withoutPriority(text).text).toBe(oldPriority(text));
      }),
      { numRuns: 3000 },
    );
  });
});
