import { redactUrl } from '../../../src/infrastructure/logging/url-redaction';

describe(redactUrl.name, () => {
  it("masks OAuth's secret parameters, whatever their case, and keeps the others", () => {
    expect(redactUrl('/token?grant_type=authorization_code&code=abc&code_verifier=def&state=s1')).toBe(
      '/token?grant_type=authorization_code&code=[REDACTED]&code_verifier=[REDACTED]&state=s1',
    );
    expect(redactUrl('/x?Refresh_Token=a&CLIENT_SECRET=b&access_token=c&token=d&id_token=e&password=f&api_key=g')).toBe(
      '/x?Refresh_Token=[REDACTED]&CLIENT_SECRET=[REDACTED]&access_token=[REDACTED]&token=[REDACTED]&id_token=[REDACTED]&password=[REDACTED]&api_key=[REDACTED]',
    );
    expect(redactUrl('/api/tasks?limit=5&status=pending')).toBe('/api/tasks?limit=5&status=pending');
  });

  it('masks every copy of a repeated parameter, and one hidden by percent-encoding its name', () => {
    expect(redactUrl('/token?code=a&code=b&%63ode=c')).toBe('/token?code=[REDACTED]&code=[REDACTED]&code=[REDACTED]');
  });

  it('redacts a URL inside a value, a fragment, and the password of user info', () => {
    const back = encodeURIComponent('https://app.example/cb?code=abc&state=s');
    expect(redactUrl(`/consent?next=${back}`)).toBe('/consent?next=https://app.example/cb?code=[REDACTED]&state=s');
    expect(redactUrl('https://app.example/cb#access_token=abc&token_type=Bearer')).toBe('https://app.example/cb#[REDACTED]');
    expect(redactUrl('https://bot:hunter2secret@mcp.example/mcp?sig=abc')).toBe('https://bot:[REDACTED]@mcp.example/mcp?sig=[REDACTED]');
  });

  it('leaves a URL without a query as it is', () => {
    expect(redactUrl('/api/1/tasks')).toBe('/api/1/tasks');
    expect(redactUrl('https://mcp.example/mcp')).toBe('https://mcp.example/mcp');
  });
});
