import fc, { type Arbitrary } from 'fast-check';
import type { TaskCycleContext, WrapUpContext } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { CycleContext } from '../../../src/domain/outreach/planning';
import type { OutreachTaskType } from '../../../src/domain/outreach/outreach-task';
import type { QuotaState } from '../../../src/domain/outreach/quota';

/**
 * Generated planner answers for the outreach validator (docs/guarantees.md), and an
 * oracle that restates the action contract on its own, without the code under test.
 */

export const CAMPAIGN = { id: 'c0ffee00-0000-4000-8000-000000000001', name: 'Q4 founders', status: 'active' as const };
export const LEAD = { name: 'Jane Doe', linkedinUrl: 'https://www.linkedin.com/in/jane-doe/', email: 'jane@acme.example' };
export const SECRET_NAMES = ['linkedin-session', 'linkedin_backup'];

const WEEK = { used: 10, limit: null, byDay: {} };
const QUOTA: QuotaState = {
  profile_lookup: { campaign: { used: 10, limit: 50, week: WEEK }, owner: { used: 10, limit: 100, week: { ...WEEK, limit: 500 } } },
  linkedin_message: { campaign: { used: 10, limit: 50, week: WEEK }, owner: { used: 10, limit: 100, week: { ...WEEK, limit: 100 } } },
  email: { campaign: { used: 10, limit: 50, week: WEEK }, owner: { used: 10, limit: 100, week: { ...WEEK, limit: 500 } } },
};

export function taskContext(type: OutreachTaskType, doNotContact: readonly string[] = []): TaskCycleContext {
  return {
    kind: 'task',
    campaign: CAMPAIGN,
    task: { id: 'task-1', type, status: 'InProgress', attempts: 1, lastError: null },
    lead: { ...LEAD, profile: null },
    quota: QUOTA,
    recent: [],
    doNotContact,
    secretNames: SECRET_NAMES,
  };
}

export const WRAP_UP: WrapUpContext = { kind: 'wrap_up', campaign: CAMPAIGN, openTasks: 0, finishedTasks: 9, quota: QUOTA, recent: [] };

type JsonObject = Record<string, unknown>;

/** The contract, restated from the planner's instructions and docs/api.md, not from src/. */
const CONTRACT = {
  actions: ['linkedin_scrape_profile', 'linkedin_send_message', 'send_email', 'wait_cooldown', 'refresh_session', 'complete_campaign'],
  byTaskType: { ScrapeProfile: 'linkedin_scrape_profile', SendLinkedInMessage: 'linkedin_send_message', SendEmail: 'send_email' },
  profileFields: ['name', 'headline', 'title', 'company', 'location', 'email'],
  reason: { min: 10, max: 200 },
  message: { min: 1, max: 1900 },
  subject: { min: 1, max: 200 },
  body: { min: 1, max: 10_000 },
  cooldownHours: { min: 0.01, max: 168 },
} as const;

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const between = (n: number, min: number, max: number) => n >= min && n <= max;
const text = (value: unknown, min: number, max: number): value is string => typeof value === 'string' && between(value.length, min, max);

/** Own keys are exactly `required` plus any of `optional`. */
function hasKeys(value: JsonObject, required: readonly string[], optional: readonly string[] = []): boolean {
  const keys = Object.keys(value);
  return required.every((key) => keys.includes(key)) && keys.every((key) => required.includes(key) || optional.includes(key));
}

/** The lead's profile, however spelled: optional www and trailing slash, any letter case in the name, surrounding blanks. */
function isTheLeadsProfile(url: unknown, context: TaskCycleContext): boolean {
  if (typeof url !== 'string' || url.length > 200) return false;
  const match = /^https:\/\/(?:www\.)?linkedin\.com\/in\/([^/?#\s]+)\/?$/.exec(url.trim());
  const leadSlug = context.lead.linkedinUrl.split('/in/')[1].replace(/\/$/, '');
  return match !== null && match[1].toLowerCase() === leadSlug && !context.doNotContact.includes(context.lead.linkedinUrl);
}

function isTheLeadsEmail(to: unknown, context: TaskCycleContext): boolean {
  const email = context.lead.email;
  return (
    typeof to === 'string' &&
    to.length <= 254 &&
    email !== null &&
    // One trailing dot names the same domain (the root's): mail is delivered to the lead alike.
    to.trim().toLowerCase().replace(/\.$/, '') === email &&
    !context.doNotContact.includes(email)
  );
}

/**
 * Whether the controller may carry out `value` in `context`: one object with exactly
 * action, args and reason; an action on offer in this cycle; exactly its arguments, of the
 * right types and lengths; targets that are the task's lead and not on the do-not-contact
 * list; a reason of 10–200 characters once trimmed.
 */
export function contractAccepts(value: unknown, context: CycleContext): boolean {
  if (!isObject(value) || !hasKeys(value, ['action', 'args', 'reason'])) return false;
  const { action, args, reason } = value;
  if (typeof reason !== 'string' || !between(reason.trim().length, CONTRACT.reason.min, CONTRACT.reason.max)) return false;
  if (!isObject(args) || typeof action !== 'string') return false;
  if (context.kind === 'wrap_up') {
    return action === 'complete_campaign' && hasKeys(args, ['campaignId']) && args.campaignId === context.campaign.id;
  }
  const onOffer: string[] = [
    CONTRACT.byTaskType[context.task.type as keyof typeof CONTRACT.byTaskType],
    'wait_cooldown',
    'refresh_session',
  ];
  if (!onOffer.includes(action)) return false;
  switch (action) {
    case 'linkedin_scrape_profile':
      return (
        hasKeys(args, ['profileUrl', 'fields']) &&
        isTheLeadsProfile(args.profileUrl, context) &&
        Array.isArray(args.fields) &&
        between(args.fields.length, 1, CONTRACT.profileFields.length) &&
        args.fields.every((field) => (CONTRACT.profileFields as readonly unknown[]).includes(field))
      );
    case 'linkedin_send_message':
      return (
        hasKeys(args, ['profileUrl', 'message']) &&
        isTheLeadsProfile(args.profileUrl, context) &&
        text(args.message, CONTRACT.message.min, CONTRACT.message.max) &&
        said(args.message)
      );
    case 'send_email':
      return (
        hasKeys(args, ['to', 'subject', 'body']) &&
        isTheLeadsEmail(args.to, context) &&
        text(args.subject, CONTRACT.subject.min, CONTRACT.subject.max) &&
        !/[\r\n\u0085\u2028\u2029]/.test(args.subject) &&
        said(args.subject) &&
        text(args.body, CONTRACT.body.min, CONTRACT.body.max) &&
        said(args.body)
      );
    case 'wait_cooldown':
      // The planner's instructions show a fallback example with a reason inside args.
      return (
        hasKeys(args, ['durationHours'], ['reason']) &&
        typeof args.durationHours === 'number' &&
        Number.isFinite(args.durationHours) &&
        between(args.durationHours, CONTRACT.cooldownHours.min, CONTRACT.cooldownHours.max) &&
        (args.reason === undefined || text(args.reason, 0, 200))
      );
    case 'refresh_session':
      return hasKeys(args, ['secretName']) && typeof args.secretName === 'string' && context.secretNames.includes(args.secretName);
    default:
      return false;
  }
}

/** The oracle applied to an answer as the model sends it: text that must parse to one object. */
export function contractAcceptsText(answer: string | null, context: CycleContext): boolean {
  try {
    return contractAccepts(JSON.parse(answer ?? ''), context);
  } catch {
    return false;
  }
}

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

type Mutation = (proposal: JsonObject) => unknown;
const onObject = (mutate: (proposal: JsonObject) => unknown) => (value: unknown) => (isObject(value) ? mutate(value) : value);

const anyJson = fc.jsonValue({ maxDepth: 3 });
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
const ARG_NAMES = ['profileUrl', 'fields', 'message', 'to', 'subject', 'body', 'durationHours', 'secretName', 'campaignId', 'reason'];

const reasons = fc
  .oneof(
    fc.string({ minLength: 10, maxLength: 200 }),
    fc.string({ unit: 'binary', minLength: 10, maxLength: 80 }),
    fc.constantFrom(
      'Task requires profile scraping; quota has room.',
      'r'.repeat(10),
      'r'.repeat(200),
      `  ${'r'.repeat(200)}\n`,
      '\t0123456789 ',
    ),
  )
  .filter((reason) => between(reason.trim().length, 10, 200));

const LEAD_URL_SPELLINGS = [
  LEAD.linkedinUrl,
  'https://linkedin.com/in/jane-doe/',
  'https://www.linkedin.com/in/jane-doe',
  'https://www.linkedin.com/in/Jane-Doe/',
  'https://linkedin.com/in/JANE-DOE',
  `  ${LEAD.linkedinUrl}\n`,
];
const LEAD_EMAIL_SPELLINGS = [LEAD.email, 'JANE@ACME.EXAMPLE', ' Jane@Acme.Example\t'];

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

function validArgs(action: string, context: CycleContext): Arbitrary<JsonObject> {
  const profileUrl = fc.constantFrom(...LEAD_URL_SPELLINGS);
  switch (action) {
    case 'linkedin_scrape_profile':
      return fc.record({
        profileUrl,
        fields: fc.oneof(
          fc.subarray([...CONTRACT.profileFields], { minLength: 1 }),
          fc.array(fc.constantFrom(...CONTRACT.profileFields), { minLength: 1, maxLength: 6 }),
        ),
      });
    case 'linkedin_send_message':
      return fc.record({
        profileUrl,
        message: fc.oneof(
          fc.string({ minLength: 1, maxLength: 300 }).filter(said),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }).filter((m) => m.length <= 1900 && said(m)),
          fc.constantFrom('x', 'm'.repeat(1900), 'Hi Jane,\nshall we talk about Q4?'),
        ),
      });
    case 'send_email':
      return fc.record({
        to: fc.constantFrom(...LEAD_EMAIL_SPELLINGS),
        subject: fc.oneof(
          fc.string({ minLength: 1, maxLength: 200 }).filter(said),
          fc.constantFrom('s', 's'.repeat(200), 'Quick question, Jane'),
        ),
        body: fc.oneof(
          fc.string({ minLength: 1, maxLength: 500 }).filter(said),
          fc.constantFrom('b', 'b'.repeat(10_000), 'Hi Jane,\r\n\r\nBest, Sam'),
        ),
      });
    case 'wait_cooldown':
      return fc.record(
        {
          durationHours: fc.oneof(fc.double({ min: 0.01, max: 168, noNaN: true }), fc.constantFrom(0.01, 1, 14.66, 168)),
          reason: fc.string({ maxLength: 200 }),
        },
        { requiredKeys: ['durationHours'] },
      );
    case 'refresh_session':
      return fc.record({ secretName: fc.constantFrom(...(context.kind === 'task' ? context.secretNames : SECRET_NAMES)) });
    default:
      return fc.record({ campaignId: fc.constant(context.campaign.id) });
  }
}

/** A proposal the contract accepts in `context` (for a context without do-not-contact entries). */
export function validProposal(context: CycleContext): Arbitrary<JsonObject> {
  const offered =
    context.kind === 'wrap_up'
      ? ['complete_campaign']
      : [CONTRACT.byTaskType[context.task.type as keyof typeof CONTRACT.byTaskType], 'wait_cooldown', 'refresh_session'];
  return fc
    .constantFrom(...offered)
    .chain((action) => fc.tuple(validArgs(action, context), reasons).map(([args, reason]) => ({ action, args, reason })));
}

/** A proposal valid in some cycle, not necessarily this one: a second action to smuggle in. */
const anyValidProposal = fc.oneof(
  validProposal(taskContext('ScrapeProfile')),
  validProposal(taskContext('SendLinkedInMessage')),
  validProposal(taskContext('SendEmail')),
  validProposal(WRAP_UP),
);

function mutation(context: CycleContext): Arbitrary<Mutation> {
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

export type ProposalSource = 'valid' | 'mutated' | 'arbitrary';

/** Arbitrary JSON, and objects shaped enough to get past the first checks. */
const arbitraryAnswer: Arbitrary<unknown> = fc.oneof(
  anyJson,
  fc.record(
    {
      action: fc.oneof(fc.constantFrom(...CONTRACT.actions), fc.string({ maxLength: 30 })),
      args: fc.oneof(anyJson, fc.dictionary(fc.constantFrom(...ARG_NAMES), anyJson, { maxKeys: 4 })),
      reason: fc.oneof(fc.string({ maxLength: 220 }), anyJson),
    },
    { requiredKeys: [] },
  ),
);

/**
 * Answer texts for `context`: valid proposals, valid proposals with one to three mutations
 * (some of which happen to stay valid), and arbitrary JSON. Every text parses as JSON;
 * `raw` adds texts that do not.
 */
export function proposalAnswer(context: CycleContext): Arbitrary<{ source: ProposalSource; text: string }> {
  const valid = validProposal(context);
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((value) => ({ source: 'valid' as const, text: answerText(value) })) },
    {
      weight: 8,
      arbitrary: fc.tuple(valid, fc.array(mutation(context), { minLength: 1, maxLength: 3 })).map(([value, mutations]) => ({
        source: 'mutated' as const,
        text: answerText(mutations.reduce<unknown>((current, mutate) => onObject(mutate)(current), value)),
      })),
    },
    { weight: 1, arbitrary: valid.map((value) => ({ source: 'mutated' as const, text: withDuplicateKey(answerText(value)) })) },
    { weight: 2, arbitrary: arbitraryAnswer.map((value) => ({ source: 'arbitrary' as const, text: answerText(value) })) },
  );
}

/** A repeated key: JSON.parse keeps the last one, and so must the check. */
function withDuplicateKey(json: string): string {
  return `{"action":"send_email","args":{"to":"john@acme.example","subject":"Hi","body":"Hi"},${json.slice(1)}`;
}

/** What a model may send besides JSON: prose around it, fences, two objects, cut-off text, nothing. */
export function rawAnswer(context: CycleContext): Arbitrary<string | null> {
  const json = proposalAnswer(context).map(({ text }) => text);
  return fc.oneof(
    json.map((t) => `Sure! Here is the next action: ${t}`),
    json.map((t) => `\`\`\`json\n${t}\n\`\`\``),
    fc.tuple(json, json).map(([a, b]) => `${a}${b}`),
    fc.tuple(json, json).map(([a, b]) => `${a}\n${b}`),
    json.map((t) => t.slice(0, -1)),
    fc.constantFrom('', 'null', '[]', '{}', 'NaN', 'undefined', '{"action": wait_cooldown}'),
    fc.string({ maxLength: 40 }),
    fc.constant(null),
  );
}

/** Text a person reads has something besides white space in it. */
function said(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}
