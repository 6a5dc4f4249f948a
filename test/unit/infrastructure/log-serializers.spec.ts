import { cutMark } from '../../../src/domain/shared/recorded-value';
import { boundedLogFields, LOGGED_TEXT_MAX_LENGTH, loggableUrl, serializeError } from '../../../src/infrastructure/logging/log-serializers';

/** What a log line reads of a long URL or message is cut before any pattern runs on it. */
describe('log serializers on long text', () => {
  const word = 'a'.repeat(64 * 1024);

  it('cuts a URL after its last `/`, `?` or `&` within the limit, and says how much it cut', () => {
    expect(loggableUrl(`/${word}`)).toBe(`/${cutMark(word.length)}`);
    expect(loggableUrl(`/api/1/tasks?limit=5&q=${word}`)).toBe(`/api/1/tasks?limit=5${cutMark(word.length + 2)}`);
  });

  it('never shows a start of a credential the cut runs through', () => {
    expect(loggableUrl(`/unsubscribe/${word}`)).toBe(`/unsubscribe/${cutMark(word.length)}`);
    expect(loggableUrl(`/mcp?access_token=${word}`)).toBe(`/mcp?${cutMark(word.length + 'access_token='.length)}`);
  });

  it('reads a URL within the limit whole, as before', () => {
    const query = `q=${'b'.repeat(LOGGED_TEXT_MAX_LENGTH - 40)}`;
    expect(loggableUrl(`/api/1/tasks?${query}&access_token=abc`)).toBe(`/api/1/tasks?${query}&access_token=[REDACTED]`);
  });

  it("cuts an error's message before redacting it, and keeps its first 500 characters", () => {
    expect(serializeError(new Error(`password=${word}`)).message).toBe(cutMark(word.length + 'password='.length));
    const long = serializeError(new Error(`token=abc ${'word '.repeat(10_000)}`)).message;
    expect(long).toBe(`token=[REDACTED] ${'word '.repeat(100)}`.slice(0, 500));
    expect(serializeError(`sk-${word}`).message).toBe(cutMark(word.length + 3));
  });
});

describe('a path or URL logged as a field of its own', () => {
  it("is redacted as the request's URL is: an unsubscribe link's token and a secret in the query never reach the line", () => {
    const line = boundedLogFields({
      msg: 'request failed',
      method: 'GET',
      path: '/unsubscribe/v1.secret-signed-token',
      url: '/oauth/callback?code=abc123&state=x',
    });
    expect(line).toEqual({
      msg: 'request failed',
      method: 'GET',
      path: '/unsubscribe/[REDACTED]',
      url: expect.not.stringContaining('abc123'),
    });
  });
});
