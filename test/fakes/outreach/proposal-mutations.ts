import fc, { type Arbitrary } from 'fast-check';
import type { CycleContext } from '../../../src/domain/outreach/planning';
import { CONTRACT, isObject, type JsonObject } from './proposal-contract';
import { LEAD, taskContext, validProposal, WRAP_UP } from './valid-proposals';

/** Changes to a valid proposal, each a way a model may break the contract (some of which happen to keep it). */

/** Stand-ins replaced in the JSON text by numbers JSON.stringify cannot write. */
const INFINITY = '\u0000+infinity';
const MINUS_INFINITY = '\u0000-infinity';

/** The answer's text; own `__proto__` keys survive, as JSON.parse would create them. */
export function answerText(value: unknown): string {
  return JSON.stringify(value).replaceAll(JSON.stringify(INFINITY), '1e999').replaceAll(JSON.stringify(MINUS_INFINITY), '-1e999');
}

/** Object.fromEntries, not a literal: a `__proto__` key must stay an own property. */
const withKey = (object: JsonObject, key: string, value: unknown): JsonObject =>
  Object.fromEntries([...Object.entries(object).filter(([name]) => name !== key), [key, value]]);
const withoutKey = (object: JsonObject, key: string): JsonObject =>
  Object.fromEntries(Object.entries(object).filter(([name]) => name !== key));
const argsOf = (proposal: JsonObject): JsonObject => (isObject(proposal.args) ? proposal.args : {});
const withArg = (proposal: JsonObject, key: string, value: unknown) => withKey(proposal, 'args', withKey(argsOf(proposal), key, value));

export type Mutation = (proposal: JsonObject) => unknown;
export const onObject = (mutate: (proposal: JsonObject) => unknown) => (value: unknown) => (isObject(value) ? mutate(value) : value);

export const anyJson = fc.jsonValue({ maxDepth: 3 });
const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  'then',
  'prototype',
];
export const ARG_NAMES = [
  'profileUrl',
  'fields',
  'message',
  'to',
  'subject',
  'body',
  'durationHours',
  'secretName',
  'campaignId',
  'reason',
];

const OTHER_URLS = [
  'https://www.linkedin.com/in/john-roe/',
  'https://www.linkedin.com/in/jane-doe-2/',
  'https://www.linkedin.com/in/jane%2Ddoe/',
  'https://www.linkedin.com/in/j%61ne-doe/',
  'https://www.linkedin.com/in/jаne-doe/',
  'http://www.linkedin.com/in/jane-doe/',
  'HTTPS://WWW.LINKEDIN.COM/in/jane-doe/',
  'https://www.linkedin.com/in/jane-doe/?trk=people',
  'https://www.linkedin.com/in/jane-doe?x=1',
  'https://www.linkedin.com/in/jane-doe/#experience',
  'https://www.linkedin.com/in/jane-doe/detail/contact-info/',
  'https://www.linkedin.com/in/jane-doe//',
  'https://www.linkedin.com//in/jane-doe/',
  'https://www.linkedin.com/in/../in/jane-doe/',
  'https://www.linkedin.com:443/in/jane-doe/',
  'https://www.linkedin.com/company/jane-doe/',
  'https://www.linkedin.com/in/',
  'https://uk.linkedin.com/in/jane-doe/',
  'https://www.linkedin.com.evil.example/in/jane-doe/',
  'https://www.linkedln.com/in/jane-doe/',
  'https://www.linkedin.com@evil.example/in/jane-doe/',
  'https://evil.example/in/jane-doe/',
  'https://evil.example/?u=https://www.linkedin.com/in/jane-doe/',
  'https://www.linkedin.com/in/jane-doe/ https://www.linkedin.com/in/john-roe/',
  'https://www.linkedin.com/in/jane-doe/\nhttps://www.linkedin.com/in/john-roe/',
  'https://www.linkedin.com/in/jane-doe/\u0000',
  'www.linkedin.com/in/jane-doe/',
  'linkedin.com/in/jane-doe',
  'jane-doe',
  '',
  `${' '.repeat(170)}${LEAD.linkedinUrl}`,
];

const OTHER_EMAILS = [
  'john@acme.example',
  'jane@acme.example.evil.example',
  'jane+sales@acme.example',
  'Jane Doe <jane@acme.example>',
  'jane@acme.example, john@acme.example',
  'jane@acme.example;john@acme.example',
  'jane@acme.example\r\nBcc: john@acme.example',
  'jane@acme.example\nbcc: john@acme.example',
  'jane@acme',
  'jane@acme.example..',
  'mailto:jane@acme.example',
  '',
  `${' '.repeat(250)}${LEAD.email}`,
];

const ACTION_SPELLINGS = [
  'LinkedIn_Scrape_Profile',
  'LINKEDIN_SEND_MESSAGE',
  'Send_Email',
  ' wait_cooldown',
  'wait_cooldown ',
  'refresh_session\n',
  'waitCooldown',
  'wait-cooldown',
  'linkedin_scrape_profiles',
  'linkedin.scrape_profile',
  'scrape',
  'linkedin_scrape_profile,send_email',
  'send_email;linkedin_send_message',
  'invalid_proposal',
  '',
];

/** A proposal valid in some cycle, not necessarily this one: a second action to smuggle in. */
const anyValidProposal = fc.oneof(
  validProposal(taskContext('ScrapeProfile')),
  validProposal(taskContext('SendLinkedInMessage')),
  validProposal(taskContext('SendEmail')),
  validProposal(WRAP_UP),
);

export function mutation(context: CycleContext): Arbitrary<Mutation> {
  const second = anyValidProposal;
  return fc.oneof(
    // Top-level fields missing, extra, or of the wrong type.
    fc.constantFrom('action', 'args', 'reason').map(
      (key): Mutation =>
        (p) =>
          withoutKey(p, key),
    ),
    fc
      .tuple(
        fc.constantFrom('actions', 'Action', 'ARGS', 'reasoning', 'thought', 'next', 'tool', '', ...PROTOTYPE_KEYS),
        fc.oneof(anyJson, second),
      )
      .map(
        ([key, value]): Mutation =>
          (p) =>
            withKey(p, key, value),
      ),
    fc.tuple(fc.constantFrom('action', 'args', 'reason'), anyJson).map(
      ([key, value]): Mutation =>
        (p) =>
          withKey(p, key, value),
    ),
    // More than one action.
    second.map((q): Mutation => (p) => ({ actions: [p, q] })),
    second.map(
      (q): Mutation =>
        (p) =>
          withKey(p, 'actions', [q]),
    ),
    second.map((q): Mutation => (p) => [p, q]),
    fc.constant<Mutation>((p) => [p]),
    fc.tuple(fc.constantFrom('action', 'actions', 'next', 'then', 'followUp', 'args', ...PROTOTYPE_KEYS), second).map(
      ([key, q]): Mutation =>
        (p) =>
          withArg(p, key, key === 'action' ? q.action : key === 'actions' ? [q] : q),
    ),
    // A valid proposal of another cycle (e.g. send_email in a ScrapeProfile cycle).
    second.map(
      (q): Mutation =>
        () =>
          q,
    ),
    // Action names: case variants, near misses, prototype keys, other types.
    fc
      .oneof(
        fc.constantFrom(...ACTION_SPELLINGS, ...PROTOTYPE_KEYS, ...CONTRACT.actions),
        fc.constantFrom(...CONTRACT.actions).chain((name) => fc.mixedCase(fc.constant(name))),
        fc.string({ maxLength: 30 }),
        anyJson,
      )
      .map(
        (name): Mutation =>
          (p) =>
            withKey(p, 'action', name),
      ),
    // args not an object.
    fc.oneof(fc.constantFrom(null, [], 'x', 0, true), anyJson).map(
      (args): Mutation =>
        (p) =>
          withKey(p, 'args', args),
    ),
    fc.constant<Mutation>((p) => withKey(p, 'args', JSON.stringify(p.args))),
    fc.constant<Mutation>((p) => withKey(p, 'args', [p.args])),
    // Arguments missing, extra, or of the wrong type.
    fc.constantFrom(...ARG_NAMES).map(
      (key): Mutation =>
        (p) =>
          withKey(p, 'args', withoutKey(argsOf(p), key)),
    ),
    fc.tuple(fc.constantFrom(...ARG_NAMES, 'cc', 'bcc', 'Fields', 'ProfileUrl', 'durationhours', '', ...PROTOTYPE_KEYS), anyJson).map(
      ([key, value]): Mutation =>
        (p) =>
          withArg(p, key, value),
    ),
    fc.tuple(fc.nat(), anyJson).map(([index, value]): Mutation => (p) => {
      const keys = Object.keys(argsOf(p));
      return keys.length ? withArg(p, keys[index % keys.length], value) : p;
    }),
    // Someone else, or somewhere else.
    fc
      .oneof(
        fc.constantFrom(...OTHER_URLS),
        fc.stringMatching(/^[a-z0-9-]{1,20}$/).map((slug) => `https://www.linkedin.com/in/${slug}/`),
        fc.webUrl({ withQueryParameters: true, withFragments: true }),
      )
      .map(
        (url): Mutation =>
          (p) =>
            withArg(p, 'profileUrl', url),
      ),
    fc.oneof(fc.constantFrom(...OTHER_EMAILS), fc.emailAddress()).map(
      (to): Mutation =>
        (p) =>
          withArg(p, 'to', to),
    ),
    // Lengths and shapes at and past the limits.
    fc.constantFrom('', ' ', 'x'.repeat(1900), 'x'.repeat(1901), 42, null, ['hi']).map(
      (m): Mutation =>
        (p) =>
          withArg(p, 'message', m),
    ),
    fc
      .constantFrom(
        'r'.repeat(9),
        'r'.repeat(10),
        'r'.repeat(200),
        'r'.repeat(201),
        `   ${'r'.repeat(9)}   `,
        '',
        '          ',
        42,
        null,
        true,
        ['a long enough reason'],
        { text: 'a long enough reason' },
      )
      .map(
        (reason): Mutation =>
          (p) =>
            withKey(p, 'reason', reason),
      ),
    fc
      .constantFrom(
        'Hi\r\nBcc: john@acme.example',
        'Hi\nthere',
        'Hi\rthere',
        'Hi\u2028there',
        '',
        '   ',
        's'.repeat(200),
        's'.repeat(201),
        7,
      )
      .map(
        (subject): Mutation =>
          (p) =>
            withArg(p, 'subject', subject),
      ),
    fc.constantFrom('', ' \n ', 'b'.repeat(10_000), 'b'.repeat(10_001), null).map(
      (body): Mutation =>
        (p) =>
          withArg(p, 'body', body),
    ),
    fc
      .constantFrom(
        [],
        ['name', ...CONTRACT.profileFields],
        ['password'],
        ['Name'],
        'name',
        [1],
        [null],
        [...CONTRACT.profileFields],
        ['name', 'name'],
      )
      .map(
        (fields): Mutation =>
          (p) =>
            withArg(p, 'fields', fields),
      ),
    fc
      .constantFrom(
        0,
        -0,
        -1,
        -0.5,
        0.009,
        0.01,
        168,
        168.01,
        1e9,
        Number.MAX_VALUE,
        INFINITY,
        MINUS_INFINITY,
        '5',
        'NaN',
        '1e999',
        null,
        true,
        [5],
        { hours: 5 },
      )
      .map(
        (hours): Mutation =>
          (p) =>
            withArg(p, 'durationHours', hours),
      ),
    fc
      .constantFrom(
        'aws-root',
        'LINKEDIN-SESSION',
        'linkedin-session ',
        '',
        '../etc/passwd',
        'x'.repeat(101),
        'linkedin-session,aws-root',
        'constructor',
      )
      .map(
        (name): Mutation =>
          (p) =>
            withArg(p, 'secretName', name),
      ),
    // complete_campaign, whatever the cycle.
    fc
      .constantFrom(context.campaign.id, 'another-campaign', '')
      .map((id): Mutation => (p) => ({ action: 'complete_campaign', args: { campaignId: id }, reason: p.reason })),
  );
}
