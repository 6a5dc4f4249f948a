import { performance } from 'node:perf_hooks';
import { clarifyingQuestion } from '../src/domain/agent/clarification';
import { Reply } from '../src/domain/agent/reply';
import { maskSecrets, redact, redactText } from '../src/domain/audit/redaction';
import { normalizeEmail } from '../src/domain/identity/user';
import { fillTemplate, firstNameOf, PLACEHOLDER_FALLBACK } from '../src/domain/outreach/brief';
import { contactAddresses } from '../src/domain/outreach/untrusted-text';
import { emailAddress } from '../src/domain/shared/email-address';
import { storableText } from '../src/domain/shared/untrusted-input';
import { understand } from '../src/infrastructure/llm/offline/intent';
import { cleanTitle, parseDeletion, tidy, withoutPriority } from '../src/infrastructure/llm/offline/phrases';
import { loggableUrl, serializeError } from '../src/infrastructure/logging/log-serializers';
import { redactUrl } from '../src/infrastructure/logging/url-redaction';

/** The worst cases of `npm run bench:untrusted-text`: each pattern Bridle runs on text it did not write, and how it is timed. */

export const MIB = 1 << 20;

/** clarifyingQuestion with two tasks seen and the todo tools' words. */
const clarifies = (text: string) =>
  clarifyingQuestion(
    text,
    [
      { number: 1, title: 'Call mum' },
      { number: 2, title: 'title' },
    ],
    {
      fields: ['title', 'description', 'priority', 'number'],
      actions: ['add', 'list', 'complete', 'update', 'delete'],
    },
  );

/** `start`, then `piece` repeated, then `end`: `length` characters in all. */
const run =
  (piece: string, end = '', start = '') =>
  (length: number): string =>
    start + piece.repeat(Math.ceil(length / piece.length)).slice(0, length - start.length - end.length) + end;

interface Case {
  readonly group: string;
  readonly what: string;
  /** The worst case, `length` characters long. */
  readonly input: (length: number) => string;
  readonly call: (text: string) => unknown;
}

const reply = (text: string) => {
  const built = new Reply(500);
  built.model(text);
  return built.value;
};

export const CASES: readonly Case[] = [
  ...(
    [
      ['one long word', run('a')],
      ['a long word ending in a secret-named key', run('x', '_password=hunter2')],
      ['digits', run('1')],
      ['spaces', run(' ')],
      ['`@` and `.`', run('@.')],
      ['`-` and `_`', run('-_')],
      ['colons', run(':')],
      ['slashes', run('/')],
      ['double quotes', run('"')],
      ['JWT starts, `eyJ-eyJ-…`', run('eyJ-')],
      ['JWT first parts, `eyJaaaaa.eyJaaaaa.…`', run('eyJaaaaa.')],
      ['`Bearer` and spaces', run(' ', 'x', 'Bearer')],
      ['`Bearer x ` repeated', run('Bearer x ')],
      ['Google key starts, 29 characters short', run(`AIza${'a'.repeat(29)} `)],
      ['a private key header with no name', run('A ', '', '-----BEGIN ')],
      ['a private key with no END', run('-----END A', '', '-----BEGIN PRIVATE KEY-----')],
      ['URL user info without `@`', run('c', '', 'a://b:')],
      ['a long URL scheme', (length: number) => `${run('a')(length / 2)}://u:${run('p')(length / 2 - 5)}`],
      ['secret-named keys, `passwordpassword…`', run('password')],
      ['a key, then spaces', run(' ', 'x', 'password')],
      ['a key and `=`, then spaces', run(' ', ',', 'password=')],
      ['an unterminated quoted value of escapes', run('\\"', '', 'password="')],
      ['cookie starts, `sid=a;sid=a;…`', run('sid=a;')],
    ] as const
  ).map(([what, input]): Case => ({ group: 'redaction patterns, uncut (maskSecrets)', what, input, call: maskSecrets })),
  { group: 'redaction as written (cut to 16 KB first)', what: 'redactText: one long word', input: run('a'), call: redactText },
  {
    group: 'redaction as written (cut to 16 KB first)',
    what: 'redact: a tool call whose title is one long word',
    input: run('a'),
    call: (title) => redact({ tool: 'add_task', arguments: { title } }),
  },
  { group: 'logs', what: 'loggableUrl: one long word as the path', input: run('a', '', '/'), call: loggableUrl },
  { group: 'logs', what: 'loggableUrl: a long query', input: run('q=a&', '', '/api/1/tasks?'), call: loggableUrl },
  { group: 'logs', what: 'redactUrl, uncut: one long query value', input: run('a', '', '/x?q='), call: redactUrl },
  { group: 'logs', what: 'loggableUrl: `&` and `=`', input: run('&=', '', '/x?'), call: loggableUrl },
  {
    group: 'logs',
    what: "serializeError: an error's message of one long word",
    input: run('a'),
    call: (text) => serializeError(new Error(text)),
  },
  { group: 'chat', what: "Reply: a model's piece of spaces, then a word", input: run(' ', 'x'), call: reply },
  { group: 'chat', what: 'clarifyingQuestion: opening quotes, no closing one', input: run(' "a'), call: clarifies },
  { group: 'chat', what: 'clarifyingQuestion: quotes', input: run("'"), call: clarifies },
  { group: 'chat', what: 'clarifyingQuestion: `task 1 or ` again and again', input: run('task 1 or '), call: clarifies },
  { group: 'chat', what: 'clarifyingQuestion: a question of a field, again and again', input: run('what title? '), call: clarifies },
  { group: 'chat', what: 'clarifyingQuestion: sentences of `1. `', input: run('1. '), call: clarifies },
  { group: 'offline model', what: 'tidy: punctuation, then a word', input: run('.', 'x'), call: tidy },
  { group: 'offline model', what: 'tidy: `, ` then a word', input: run(', ', 'x'), call: tidy },
  { group: 'offline model', what: 'withoutPriority: `, (-` then a word', input: run(' ,;(-', 'x'), call: withoutPriority },
  { group: 'offline model', what: 'cleanTitle: a word, spaces, a word', input: run(' ', 'y', 'x'), call: cleanTitle },
  { group: 'offline model', what: 'parseDeletion: `task` and spaces', input: run(' ', 'x', 'task'), call: parseDeletion },
  { group: 'offline model', what: 'understand: a note with dashes', input: run('-', '', 'add a note to x'), call: understand },
  { group: 'offline model', what: 'understand: one long word', input: run('a'), call: understand },
  { group: 'offline model', what: 'understand: `i need to ` again and again', input: run('i need to ', 'call mum'), call: understand },
  { group: 'outreach', what: "firstNameOf: a name's run of dots", input: run('.', 'b', 'a'), call: firstNameOf },
  {
    group: 'outreach',
    what: 'fillTemplate: `{{` and spaces',
    input: run(' ', '', '{{'),
    call: (text) => fillTemplate(text, PLACEHOLDER_FALLBACK),
  },
  { group: 'outreach', what: 'fillTemplate: `{{{{…`', input: run('{'), call: (text) => fillTemplate(text, PLACEHOLDER_FALLBACK) },
  { group: 'outreach', what: 'contactAddresses: one long word', input: run('a'), call: contactAddresses },
  { group: 'outreach', what: 'contactAddresses: `a@`', input: run('a@'), call: contactAddresses },
  { group: 'outreach', what: 'contactAddresses: `a.`', input: run('a.'), call: contactAddresses },
  { group: 'outreach', what: 'contactAddresses: `www.`', input: run('www.'), call: contactAddresses },
  { group: 'outreach', what: 'emailAddress: `a@` and dots (refused by length first)', input: run('.', '', 'a@'), call: emailAddress },
  {
    group: 'accounts',
    what: 'normalizeEmail: `a@` and dots (refused by length first)',
    input: run('.', '', 'a@'),
    call: (text) => {
      try {
        return normalizeEmail(text);
      } catch {
        return null;
      }
    },
  },
  { group: 'input boundary', what: 'storableText: lone surrogates', input: run('\uD800'), call: storableText },
];

/** The pattern redaction had before its patterns were made linear: a key found from the start of its word. */
export const KEY_PATTERN_BEFORE = new RegExp(
  `(["']?[\\w-]*(?:${['password', 'passwd', 'passphrase', 'secret', 'token', 'apikey', 'authorization', 'cookie', 'session']
    .map((ending) => ending.split('').join('[-_]?'))
    .join('|')})["']?\\s*[:=]\\s*)("(?:[^"\\\\]|\\\\.)*"?|'(?:[^'\\\\]|\\\\.)*'?|[^\\s,;&}\\]]+)`,
  'gi',
);

export interface Timing {
  readonly group: string;
  readonly what: string;
  /** Median of 3 runs on 1 MiB. */
  readonly ms: number;
  /** Median of 3 runs on a quarter of that: a linear function takes about 4 times as long on 1 MiB, a quadratic one 16. */
  readonly quarterMs: number;
}

export function time(call: () => unknown): number {
  const started = performance.now();
  call();
  return performance.now() - started;
}

function median(call: () => unknown): number {
  return [0, 1, 2].map(() => time(call)).sort((a, b) => a - b)[1];
}

export function measure(cases: readonly Case[], say: (text: string) => void): Timing[] {
  return cases.map(({ group, what, input, call }) => {
    call(input(16 * 1024));
    const quarter = input(MIB / 4);
    const whole = input(MIB);
    const timing = { group, what, ms: round(median(() => call(whole))), quarterMs: round(median(() => call(quarter))) };
    say(`  ${timing.ms.toFixed(1).padStart(7)} ms (${timing.quarterMs.toFixed(1).padStart(6)} ms on a quarter)  ${group}: ${what}`);
    return timing;
  });
}

export const round = (ms: number) => Math.round(ms * 10) / 10;
