import { cutMark } from '../../../src/domain/shared/recorded-value';
import { isSecretKey, maskSecrets, REDACTED, REDACTED_TEXT_MAX_LENGTH, redact, redactText } from '../../../src/domain/audit/redaction';

describe(redact.name, () => {
  it.each(['apiKey', 'api_key', 'API-KEY', 'password', 'sessionToken', 'Authorization', 'cookie', 'client_secret', 'privateKey'])(
    'masks the value of a %s field at any depth',
    (key) => {
      const input = { [key]: 'plain-looking value', nested: { deeper: { [key]: 'another value' } }, list: [{ [key]: 42 }] };
      expect(redact(input)).toEqual({
        [key]: REDACTED,
        nested: { deeper: { [key]: REDACTED } },
        list: [{ [key]: REDACTED }],
      });
    },
  );

  it('keeps fields that only name a secret or count tokens', () => {
    const input = { secretName: 'LINKEDIN_SESSION', promptTokens: 12, sessionId: 'abc', tokenCount: 3, passwordPolicy: 'strong' };
    expect(redact(input)).toEqual(input);
    expect(isSecretKey('secretName')).toBe(false);
  });

  it('keeps an empty or missing secret as it is, so its absence stays visible', () => {
    expect(redact({ password: null, apiKey: '', token: undefined })).toEqual({ password: null, apiKey: '', token: undefined });
  });

  it.each([
    ['an OpenAI key', 'use sk-abcdefghijklmnop1234 for it', 'use [REDACTED] for it'],
    ['a project key', 'key=sk-proj-AbC_dEf-1234567890xyz end', 'key=[REDACTED] end'],
    ['a bearer token', 'header Authorization: Bearer abc.DEF-ghi_123== sent', 'header Authorization: [REDACTED] sent'],
    ['a JWT', 'token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJl here', 'token [REDACTED] here'],
    ['a Google API key', `call with AIza${'x'.repeat(35)} please`, 'call with [REDACTED] please'],
    [
      'a URL password',
      'connect to postgres://bridle:s3cr3t-pass@db.example:5432/app now',
      'connect to postgres://bridle:[REDACTED]@db.example:5432/app now',
    ],
    ['a LinkedIn session cookie', 'Cookie: li_at=AQEDAR1234567890abcdef; lang=en', 'Cookie: [REDACTED]; lang=en'],
    ['a GitHub token', `push with ghp_${'a1'.repeat(12)}`, 'push with [REDACTED]'],
    ['a Bridle access token', `use bridle_pat_${'Zq-_9'.repeat(8)}x please`, 'use [REDACTED] please'],
    ['a Bridle refresh token', `bridle_ort_${'a'.repeat(43)}`, '[REDACTED]'],
    ['an AWS access key id', 'id AKIAABCDEFGHIJKLMNOP ok', 'id [REDACTED] ok'],
  ])('masks %s inside longer text', (_, text, masked) => {
    expect(redactText(text)).toBe(masked);
    expect(redact({ title: text })).toEqual({ title: masked });
  });

  it('leaves ordinary text and values untouched', () => {
    const input = {
      title: 'Buy milk',
      description: 'ask for the task-abcdefghijklmnop list at https://example.com/path?q=1',
      url: 'https://user@example.com/',
      priority: 3,
      done: false,
      tags: ['home', 'errands'],
    };
    expect(redact(input)).toEqual(input);
  });

  it('masks inside arrays, of strings and of objects', () => {
    expect(redact(['fine', 'sk-abcdefghijklmnop1234', { token: 'x' }, [{ nested: 'Bearer abcdefgh' }]])).toEqual([
      'fine',
      REDACTED,
      { token: REDACTED },
      [{ nested: REDACTED }],
    ]);
  });

  it('masks a bare string, and returns other primitives as they are', () => {
    expect(redact('Bearer abcdefgh')).toBe(REDACTED);
    expect(redact(7)).toBe(7);
    expect(redact(null)).toBeNull();
  });

  it('leaves prose that merely starts like a credential', () => {
    expect(redactText('Bearer of bad news')).toBe('Bearer of bad news');
  });

  it('does not change its input', () => {
    const input = { apiKey: 'sk-abcdefghijklmnop1234', list: ['sk-abcdefghijklmnop1234'] };
    const copy = structuredClone(input);
    redact(input);
    expect(input).toEqual(copy);
  });

  it('cuts a structure nested deeper than its limit, and keeps one within it', () => {
    const nest = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: nest(depth - 1) });
    const reach = (value: unknown, depth: number): unknown => (depth === 0 ? value : reach((value as { a: unknown }).a, depth - 1));
    expect(redact(nest(20))).toEqual(nest(20));
    const deep = redact(nest(40));
    expect(reach(deep, 31)).toEqual(expect.objectContaining({ a: REDACTED }));
    expect(JSON.stringify(deep)).not.toContain('leaf');
  });
});

describe('redactText on text that is not JSON', () => {
  it.each([
    ['broken JSON from a model', '{"title":"x","password":"hunter2-secret"', '{"title":"x","password":"[REDACTED]"'],
    ['key=value pairs', 'title=x api_key=abc123 next', 'title=x api_key=[REDACTED] next'],
    ['a YAML-ish line', 'db_password: s3cret, host: db', 'db_password: [REDACTED], host: db'],
    ['single quotes', "{'token': 'abc.def'}", "{'token': '[REDACTED]'}"],
  ])('masks the value of a secret-named key in %s', (_, text, masked) => {
    expect(redactText(text)).toBe(masked);
  });

  it('leaves text without a secret-named key alone', () => {
    expect(redactText('title: Buy milk, priority: high')).toBe('title: Buy milk, priority: high');
  });
});

describe('redactText on text longer than it keeps', () => {
  const MAX = REDACTED_TEXT_MAX_LENGTH;

  it('cuts one long word whole: nothing of it is kept, only how long it was', () => {
    const word = `sk-${'a'.repeat(62 * 1024)}`;
    expect(redactText(word)).toBe(cutMark(word.length));
    expect(redact({ name: 'add_task', arguments: { title: word } })).toEqual({
      name: 'add_task',
      arguments: { title: cutMark(word.length) },
    });
  });

  it('keeps the text up to its last separator within the limit, masked as before, and marks the rest as cut', () => {
    const kept = `api_key=abc123 then Bearer abcdefgh.ijk ${'word '.repeat(MAX)}`.slice(0, MAX - 1) + ' ';
    const text = `${kept}${'z'.repeat(100)} more`;
    expect(kept).toHaveLength(MAX);
    expect(redactText(text)).toBe(`${redactText(kept)}${cutMark(105)}`);
    expect(redactText(text).startsWith('api_key=[REDACTED] then [REDACTED] word word ')).toBe(true);
  });

  it('drops a secret the cut runs through, rather than keep a start of it too short for its shape', () => {
    const filler = 'x '.repeat((MAX - 10) / 2);
    const token = 'abcdefghijklmnopqrstuvwxyz0123456789';
    const text = `${filler}Bearer ${token}`;
    expect(redactText(text)).toBe(`${filler}Bearer ${cutMark(token.length)}`);
    expect(redactText(text)).not.toContain('abc');
  });

  it('leaves text of exactly the limit whole', () => {
    const text = `${'a'.repeat(MAX - 20)} password=hunter2xyz`;
    expect(text).toHaveLength(MAX);
    expect(redactText(text)).toBe(`${'a'.repeat(MAX - 20)} password=[REDACTED]`);
  });
});

describe('maskSecrets on long runs of what its patterns look for', () => {
  const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTYifQ.c2lnbmF0dXJl';

  it('masks the value after a secret-named key at the end of a long word, keeping the word', () => {
    const word = 'x'.repeat(100_000);
    expect(maskSecrets(`${word}_password=hunter2 ok`)).toBe(`${word}_password=[REDACTED] ok`);
    expect(maskSecrets(`${word} ok`)).toBe(`${word} ok`);
  });

  it('keeps a long run of JWT starts that is no JWT, and masks the JWT after it, or one after a hyphen', () => {
    const run = 'eyJ-'.repeat(25_000);
    expect(maskSecrets(`${run} ${JWT}`)).toBe(`${run} ${REDACTED}`);
    expect(maskSecrets(`x-${JWT}`)).toBe(`x-${REDACTED}`);
    expect(maskSecrets(`eyJaa.${JWT}`)).toBe(`eyJaa.${REDACTED}`);
  });

  it('finds the password of a URL after a long scheme, user and password, and nothing in a run of colons', () => {
    const long = 'p'.repeat(50_000);
    expect(maskSecrets(`${'a'.repeat(50_000)}://user:${long}@db.example`)).toBe(`${'a'.repeat(50_000)}://user:${REDACTED}@db.example`);
    const colons = `a://b${':'.repeat(50_000)}`;
    expect(maskSecrets(colons)).toBe(colons);
  });
});
