import fc from 'fast-check';

/**
 * Generators of what a person must never read from the model, each embedded in an ordinary
 * sentence, and of ordinary sentences that must reach them: the reply check's property tests
 * (reply-check.property.spec.ts, chat-stream-check.property.spec.ts) use both.
 */

const lower = (min: number, max: number) => fc.stringMatching(new RegExp(`^[a-z]{${min},${max}}$`));
const capitalised = lower(2, 7).map((word) => word[0].toUpperCase() + word.slice(1));

/** A field name as our schemas and ids spell them: snake_case or camelCase. */
export const identifier = fc.oneof(
  fc
    .tuple(lower(2, 8), fc.array(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 3 }))
    .map(([head, rest]) => [head, ...rest].join('_')),
  fc.tuple(lower(2, 8), fc.array(capitalised, { minLength: 1, maxLength: 3 })).map(([head, rest]) => head + rest.join('')),
  fc.constantFrom('task_id', 'user_id', 'conversation_id', 'decisionId', 'taskId', 'userId', 'dueDate', 'argumentsHash'),
);
/** A field as a validator names it: an identifier or a plain word. */
const fieldName = fc.oneof(identifier, fc.constantFrom('title', 'priority', 'description', 'status', 'number', 'query'));
const limit = fc.integer({ min: 0, max: 100_000 });
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

/** The messages of Ajv's templates (ajv/lib/vocabularies), with random fields and limits. */
const ajvTemplate: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(fc.constantFrom('more', 'fewer'), limit, fc.constantFrom('characters', 'items', 'properties'))
    .map(([comp, n, what]) => `must NOT have ${comp} than ${n} ${what}`),
  fieldName.map((field) => `must have required property '${field}'`),
  fc.constant('must be equal to one of the allowed values'),
  fc.constant('must be equal to constant'),
  fc.stringMatching(/^\^?[a-z0-9[\]+*-]{1,12}\$?$/).map((pattern) => `must match pattern "${pattern}"`),
  fc.constantFrom('email', 'date', 'uri', 'uuid', 'date-time').map((format) => `must match format "${format}"`),
  fc.tuple(fc.constantFrom('<=', '>=', '<', '>'), limit).map(([op, n]) => `must be ${op} ${n}`),
  fc
    .tuple(fc.constantFrom(...TYPES), fc.boolean())
    .map(([type, nullable]) => `must be ${type}${nullable && type !== 'null' ? ' or null' : ''}`),
  limit.map((n) => `must be multiple of ${n + 1}`),
  fc.constant('must NOT have additional properties'),
  fc.constant('must NOT have unevaluated properties'),
  fc.tuple(fc.nat(20), fc.nat(20)).map(([j, i]) => `must NOT have duplicate items (items ## ${j} and ${i} are identical)`),
  fc.constantFrom(
    'must match exactly one schema in oneOf',
    'must match a schema in anyOf',
    'must NOT be valid',
    'must match "then" schema',
  ),
  limit.map((n) => `must contain at least ${n} valid item(s)`),
  fc.constant('property name must be valid'),
  fc.tuple(fieldName, fieldName).map(([a, b]) => `must have property '${a}' when property '${b}' is present`),
);
/** Ajv's message as a validator prints it: after the field's path, or alone. */
export const validatorMessage = fc
  .tuple(fc.constantFrom('', 'data', 'data/', '/', 'data.', 'arguments/'), fieldName, ajvTemplate, fc.boolean())
  .map(([root, field, message, named]) => (named ? `${root}${field} ${message}` : message));

/** JSON as a model leaks it: an object's start, a key and its value, a small array. */
const jsonKey = fc.oneof(identifier, lower(2, 10));
const jsonScalar = fc.oneof(
  fc.integer({ min: -1000, max: 100_000 }).map(String),
  lower(1, 8).map((word) => JSON.stringify(word)),
  fc.constantFrom('true', 'false', 'null'),
);
export const jsonFragment: fc.Arbitrary<string> = fc.oneof(
  jsonKey.map((key) => `{"${key}":`),
  fc.tuple(jsonKey, jsonScalar).map(([key, value]) => `{"${key}": ${value}}`),
  fc.tuple(jsonKey, jsonScalar).map(([key, value]) => `"${key}": ${value}`),
  fc.array(jsonScalar, { minLength: 2, maxLength: 4 }).map((values) => `[${values.join(',')}]`),
  fc.array(jsonScalar, { minLength: 2, maxLength: 4 }).map((values) => `[${values.join(', ')}]`),
);

/** A stack trace's lines, Node's and Python's. */
export const stackTrace: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(identifier, lower(2, 8), fc.nat(999), fc.nat(99))
    .map(([fn, file, line, col]) => `at ${fn} (/app/dist/${file}.js:${line + 1}:${col + 1})`),
  fc.tuple(lower(2, 8), fc.nat(999)).map(([file, line]) => `(src/${file}.ts:${line + 1}:7)`),
  lower(2, 8).map((prop) => `TypeError: Cannot read properties of undefined (reading '${prop}')`),
  fc.constantFrom('ReferenceError: x is not defined', 'RangeError: Maximum call stack size exceeded', 'SyntaxError: Unexpected token'),
  lower(2, 8).map((pkg) => `node_modules/${pkg}/index.js`),
  fc.nat(999).map((line) => `Traceback (most recent call last): File "app.py", line ${line + 1}`),
);

/** Error codes: SCREAMING_SNAKE, dotted, and the system's errno names. */
export const errorCode: fc.Arbitrary<string> = fc.oneof(
  fc.array(fc.stringMatching(/^[A-Z]{2,8}$/), { minLength: 2, maxLength: 4 }).map((parts) => parts.join('_')),
  fc
    .tuple(fc.stringMatching(/^[A-Z]{2,8}$/), fc.array(fc.stringMatching(/^[A-Z]{2,8}$/), { minLength: 2, maxLength: 3 }))
    .map(([ns, parts]) => `${ns}.${parts.join('_')}`),
  fc.constantFrom('ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRINUSE', 'ENOENT'),
);

/** Every kind of unfit words, named, so that a counterexample says which one got through. */
export const UNFIT: Readonly<Record<string, fc.Arbitrary<string>>> = {
  'a validator message': validatorMessage,
  'a UUID': fc.uuid(),
  'an identifier': identifier,
  'a JSON fragment': jsonFragment,
  'a stack trace': stackTrace,
  'an error code': errorCode,
};

const BEFORE = ['', 'That did not work: ', 'Sorry, ', 'I tried, but ', 'The task ', 'Heads up. ', 'Error: ', 'Hmm, it says '];
const AFTER = ['', '.', '!', ' Please try again.', ', so nothing changed.', ' (sorry)', '\nAnything else?'];

/** `thing` inside an ordinary sentence, at its start, middle or end. */
export function inSentence(thing: fc.Arbitrary<string>): fc.Arbitrary<{ readonly text: string; readonly thing: string }> {
  return fc.tuple(fc.constantFrom(...BEFORE), thing, fc.constantFrom(...AFTER)).map(([before, found, after]) => ({
    text: `${before}${found}${after}`,
    thing: found,
  }));
}

const TITLES = [
  'Buy milk',
  'Call mum',
  'Pay rent',
  'Dentist appointment',
  'Book flights to Rome',
  'Fix the fence',
  "Read 'Dune'",
  'Renew passport',
  'Email Ada about Q3',
  'Water the plants',
  'Pick up the kids at 3',
  'Finish chapter 12',
  'Buy 2 kg of apples',
  'Call the U.S. office',
  'Prepare slides (v2)',
  'Pay $45.90 to Sam',
  'Run 5 km',
  'Review PR #123',
  'Order iPhone case',
  'ASAP: file taxes',
];
const title = fc.constantFrom(...TITLES);
const time = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${h}:${String(m).padStart(2, '0')}`),
  fc.tuple(fc.integer({ min: 1, max: 12 }), fc.constantFrom('am', 'pm', ' AM', ' PM')).map(([h, half]) => `${h}${half}`),
);
const date = fc.oneof(
  fc
    .tuple(fc.integer({ min: 2024, max: 2030 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
    .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
  fc.constantFrom('tomorrow', 'next Monday', 'on Friday', 'today', '31/12', '12/31'),
);
const email = fc
  .tuple(lower(2, 8), fc.constantFrom('', '.', '_', '-', '+'), lower(2, 8), fc.constantFrom('example.com', 'mail.co.uk', 'acme.io'))
  .map(([first, sep, last, domain]) => `${first}${sep}${last}@${domain}`);
const url = fc
  .tuple(
    fc.constantFrom('https://example.com', 'http://acme.io', 'https://docs.example.org'),
    fc.stringMatching(/^(\/[a-z0-9_-]{1,10}){0,3}$/),
  )
  .map(([origin, path]) => `${origin}${path}`);
const count = fc.integer({ min: 0, max: 9999 });

/** What the assistant says about tasks: titles with numbers, times, dates, emails, links, money. */
export const ordinarySentence: fc.Arbitrary<string> = fc.oneof(
  title.map((t) => `Added '${t}' to your list.`),
  fc.tuple(count, title, date, time).map(([n, t, d, at]) => `Task ${n}, '${t}', is due ${d} at ${at}.`),
  fc.tuple(time, date).map(([at, d]) => `I'll remind you at ${at} ${d}.`),
  fc.tuple(title, email).map(([t, to]) => `I noted '${t}': write to ${to} about it.`),
  fc.tuple(count, title, title).map(([n, a, b]) => `You have ${n} tasks: 1. ${a}, 2. ${b}.`),
  fc.tuple(title, title).map(([a, b]) => `Your list:\n1. ☐ ${a}\n2. ✓ ${b}`),
  fc.tuple(title, title).map(([a, b]) => `Which task do you mean: '${a}' or '${b}'?`),
  url.map((link) => `See ${link} for the details.`),
  fc
    .tuple(count, fc.integer({ min: 0, max: 99 }), fc.integer({ min: 1, max: 90 }))
    .map(([n, c, p]) => `That costs $${n}.${String(c).padStart(2, '0')} (${p}% off).`),
  title.map((t) => `Done! **${t}** is marked complete. Anything else, e.g. a reminder?`),
  fc.tuple(title, count).map(([t, n]) => `Sure. [1] ${t} [2] ${n} more to go`),
  fc.tuple(title, time).map(([t, at]) => `"${t}" is set for ${at}; it's high priority (the U.K. team asked).`),
  fc.tuple(count, count).map(([a, b]) => `You finished ${a} of ${b} tasks, i.e. most of them. Nice work!`),
);
