import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import { signUpAndIn, uniqueEmail } from '../support/accounts';
import { captureStdout } from '../support/log-capture';
import { useTestApp } from '../support/test-app';

/** Where an attacker's client sends the browser back to: a site of their own. */
const FOREIGN_REDIRECT = 'https://attacker.example/callback';
const OTHER_FOREIGN_REDIRECT = 'https://attacker.example/other';

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The request-completed lines pino-http wrote, parsed. */
function requestLines(text: string): { req: { method: string; url: string }; res: { statusCode: number } }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"req":'))
    .map((line) => JSON.parse(line) as { req: { method: string; url: string }; res: { statusCode: number } });
}

/** Let pino's writes of the requests just answered reach the captured stdout. */
const logsFlushed = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * The SDK's OAuth endpoints (/authorize, /token, /register, /revoke) sit behind the same input
 * boundary as every Nest route, /authorize never redirects an error to a client (anyone may
 * register a client whose redirect URI is their own site), a method an endpoint does not take
 * is 405, and no code, verifier or token reaches a log line through a URL.
 */
describe('the OAuth routes behind the boundary', () => {
  let stdout: ReturnType<typeof captureStdout>;
  beforeAll(() => {
    stdout = captureStdout();
  });
  const sut = useTestApp({ env: { LOG_LEVEL: 'info' }, beforeClose: () => stdout?.restore() });
  const alice = sut.user();
  let resource: string;
  /** The attacker's client: one foreign redirect URI. */
  let attacker: string;
  /** A client with two foreign redirect URIs, so a request must name one. */
  let twoRedirects: string;

  beforeAll(async () => {
    resource = new URL('/mcp', sut.http).href;
    attacker = (await register({ client_name: 'Totally legit', redirect_uris: [FOREIGN_REDIRECT] }).expect(201)).body.client_id;
    twoRedirects = (await register({ redirect_uris: [FOREIGN_REDIRECT, OTHER_FOREIGN_REDIRECT] }).expect(201)).body.client_id;
  });

  function register(metadata: Record<string, unknown>): request.Test {
    return request(sut.http)
      .post('/register')
      .send({ client_name: 'A client', token_endpoint_auth_method: 'none', ...metadata });
  }

  /** A valid request for the attacker's client, with `changes` applied (undefined drops a parameter). */
  function authorizeQuery(changes: Record<string, string | undefined> = {}, clientId = attacker): string {
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: FOREIGN_REDIRECT,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 'state-1',
      scope: 'tasks:read',
      resource,
      ...changes,
    };
    const defined = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
    return new URLSearchParams(defined).toString();
  }

  /** Bridle's page, 400, and nothing that sends the browser anywhere. */
  function expectErrorPage(response: request.Response, error: string, naming?: string): void {
    expect({ status: response.status, location: response.headers.location, type: response.headers['content-type'] }).toEqual({
      status: 400,
      location: undefined,
      type: 'text/html; charset=utf-8',
    });
    expect(response.text).toContain('This authorization request cannot go on');
    expect(response.text).toContain(`<code>${error}</code>`);
    if (naming) expect(response.text).toContain(naming);
    // Nothing of the client's: no link, no host, no name it chose.
    expect(response.text).not.toContain('attacker.example');
    expect(response.text).not.toContain('Totally legit');
    expect(response.text).not.toMatch(/<a\b|<form\b|<script\b|http-equiv/i);
  }

  describe('/authorize never redirects an error to a client', () => {
    const badRequests: [what: string, changes: Record<string, string | undefined>, error: string, naming: string][] = [
      ['no response_type', { response_type: undefined }, 'unsupported_response_type', 'response_type'],
      ['response_type=token (the implicit flow)', { response_type: 'token' }, 'unsupported_response_type', 'response_type'],
      ['no code_challenge', { code_challenge: undefined }, 'invalid_request', 'code_challenge'],
      ['code_challenge_method=plain', { code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method'],
      ['a code_challenge that is no S256 challenge', { code_challenge: 'short' }, 'invalid_request', 'code_challenge'],
      ['a scope Bridle does not have', { scope: 'tasks:read admin:everything' }, 'invalid_scope', 'scopes are tasks:read'],
      ['a resource other than its MCP endpoint', { resource: 'https://other.example/mcp' }, 'invalid_target', 'resource'],
      ['a resource that is no URL', { resource: 'not a url' }, 'invalid_target', 'resource'],
      ['a state longer than 1 000 characters', { state: 's'.repeat(1_500) }, 'invalid_request', 'state'],
      ['a redirect_uri the client did not register', { redirect_uri: 'https://elsewhere.example/cb' }, 'invalid_request', 'redirect_uri'],
      ['a redirect_uri that is no URL', { redirect_uri: 'javascript:alert(1)' }, 'invalid_request', 'redirect_uri'],
      ['no client_id', { client_id: undefined }, 'invalid_request', 'client_id'],
      ['a client_id nobody registered', { client_id: '4f1c1f0e-1111-4222-8333-944444444444' }, 'invalid_client', 'client_id'],
      ['a client_id that is no id', { client_id: 'x' }, 'invalid_client', 'client_id'],
    ];

    it.each(badRequests)('shows its own error page for %s', async (_what, changes, error, naming) => {
      expectErrorPage(await request(sut.http).get(`/authorize?${authorizeQuery(changes)}`), error, naming);
    });

    it("names Bridle's scopes on its page, never the words the client sent as a scope", async () => {
      const response = await request(sut.http).get(`/authorize?${authorizeQuery({ scope: 'Your-account-is-locked:call-0800-123' })}`);
      expectErrorPage(response, 'invalid_scope', 'tasks:read');
      expect(response.text).not.toContain('locked');
    });

    it('shows it for no redirect_uri when the client registered two', async () => {
      const response = await request(sut.http).get(`/authorize?${authorizeQuery({ redirect_uri: undefined }, twoRedirects)}`);
      expectErrorPage(response, 'invalid_request', 'redirect_uri');
    });

    it('shows it for a form POST too', async () => {
      const response = await request(sut.http)
        .post('/authorize')
        .type('form')
        .send(Object.fromEntries(new URLSearchParams(authorizeQuery({ response_type: 'token' }))));
      expectErrorPage(response, 'unsupported_response_type', 'response_type');
    });

    it('still sends a valid request to the consent page, and the approved code to the registered URI', async () => {
      const { verifier, challenge } = pkce();
      const started = await request(sut.http).get(`/authorize?${authorizeQuery({ code_challenge: challenge })}`);
      expect(started.status).toBe(302);
      const consent = new URL(started.headers.location);
      expect(`${consent.origin}${consent.pathname}`).toBe(`${sut.http}/`);
      const requestId = new URLSearchParams(consent.hash.split('?')[1]).get('request')!;
      const answer = await request(sut.http).post(`/oauth/requests/${requestId}/approve`).set(alice.auth).send({}).expect(200);
      // After the person said yes on Bridle's own page: the answer goes where the client registered.
      const back = new URL(answer.body.redirectTo);
      expect(`${back.origin}${back.pathname}`).toBe(FOREIGN_REDIRECT);
      expect(back.searchParams.get('state')).toBe('state-1');
      const tokens = await request(sut.http)
        .post('/token')
        .type('form')
        .send({
          grant_type: 'authorization_code',
          client_id: attacker,
          code: back.searchParams.get('code')!,
          code_verifier: verifier,
          redirect_uri: FOREIGN_REDIRECT,
        });
      expect(tokens.status).toBe(200);
      expect(tokens.body.scope).toBe('tasks:read');
    });
  });

  describe('the input boundary', () => {
    it('refuses a NUL in the client name at /register with 400 naming the field, and logs the request', async () => {
      const response = await register({ client_name: 'Evil\u0000client', redirect_uris: [FOREIGN_REDIRECT] });
      expect({ status: response.status, body: response.body }).toEqual({
        status: 400,
        body: { error: 'invalid_client_metadata', error_description: 'client_name contains a NUL character' },
      });
      await logsFlushed();
      const lines = requestLines(stdout.text()).filter((line) => line.req.url === '/register');
      expect(lines.map((line) => line.res.statusCode)).toContain(400);
    });

    it('refuses a lone surrogate and an oversize field at /register', async () => {
      const surrogate = await register({ client_name: 'half \ud800 a pair', redirect_uris: [FOREIGN_REDIRECT] });
      expect({ status: surrogate.status, body: surrogate.body }).toEqual({
        status: 400,
        body: { error: 'invalid_client_metadata', error_description: 'client_name contains a lone surrogate (not valid Unicode)' },
      });
      const oversize = await register({ redirect_uris: [FOREIGN_REDIRECT], logo_uri: `https://x.example/${'a'.repeat(3_000)}` });
      expect({ status: oversize.status, body: oversize.body }).toEqual({
        status: 400,
        body: { error: 'invalid_client_metadata', error_description: 'logo_uri is longer than 2048 characters' },
      });
      const nested = await register({ redirect_uris: [FOREIGN_REDIRECT, 'https://x.example/\u0000'] });
      expect(nested.body.error_description).toBe('redirect_uris[1] contains a NUL character');
    });

    it('refuses a NUL, an oversize value or a repeated parameter in the /authorize query on its page', async () => {
      expectErrorPage(
        await request(sut.http).get(`/authorize?${authorizeQuery({ state: 'a\u0000b' })}`),
        'invalid_request',
        'state contains a NUL character',
      );
      expectErrorPage(
        await request(sut.http).get(`/authorize?${authorizeQuery({ state: 'x'.repeat(3_000) })}`),
        'invalid_request',
        'state is longer than 2048 characters',
      );
      expectErrorPage(
        await request(sut.http).get(`/authorize?${authorizeQuery()}&scope=tasks:write`),
        'invalid_request',
        'scope is given more than once',
      );
    });

    it('refuses a NUL, a lone surrogate or an oversize value in the /token and /revoke forms, naming the field', async () => {
      const token = (body: string) => request(sut.http).post('/token').type('form').send(body);
      const nul = await token(`grant_type=authorization_code&client_id=${attacker}&code=abc%00def&code_verifier=v`);
      expect({ status: nul.status, body: nul.body }).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'code contains a NUL character' },
      });
      const long = await token(`grant_type=refresh_token&client_id=${attacker}&refresh_token=${'r'.repeat(3_000)}`);
      expect(long.body).toEqual({ error: 'invalid_request', error_description: 'refresh_token is longer than 2048 characters' });
      const twice = await token(`grant_type=refresh_token&client_id=${attacker}&client_id=${twoRedirects}&refresh_token=r`);
      expect(twice.body).toEqual({ error: 'invalid_request', error_description: 'client_id is given more than once' });
      const revoke = await request(sut.http).post('/revoke').type('form').send(`client_id=${attacker}&token=%00`);
      expect({ status: revoke.status, body: revoke.body }).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'token contains a NUL character' },
      });
      // JSON is no form, but a lone surrogate in it is refused all the same.
      const json = await request(sut.http)
        .post('/token')
        .set('Content-Type', 'application/json')
        .send('{"grant_type":"refresh_token","refresh_token":"\\udc00"}');
      expect(json.body).toEqual({
        error: 'invalid_request',
        error_description: 'refresh_token contains a lone surrogate (not valid Unicode)',
      });
    });

    it('refuses a NUL on the consent routes, which are Nest routes behind the global guard', async () => {
      const started = await request(sut.http).get(`/authorize?${authorizeQuery()}`).expect(302);
      const requestId = new URLSearchParams(new URL(started.headers.location).hash.split('?')[1]).get('request')!;
      const approve = await request(sut.http)
        .post(`/oauth/requests/${requestId}/approve`)
        .set(alice.auth)
        .send({ scopes: ['tasks:read\u0000'] });
      expect({ status: approve.status, code: approve.body.code, message: approve.body.message }).toEqual({
        status: 400,
        code: 'VALIDATION.FAILED',
        message: 'scopes[0] contains a NUL character',
      });
    });

    it('answers none of these with a 500', async () => {
      await logsFlushed();
      const oauth = requestLines(stdout.text()).filter((line) => /^\/(authorize|token|register|revoke|oauth)\b/.test(line.req.url));
      expect(oauth.length).toBeGreaterThan(20);
      expect(oauth.filter((line) => line.res.statusCode >= 500)).toEqual([]);
    });
  });

  describe('methods and logs', () => {
    it('answers GET /token with 405 and Allow, and logs neither the code nor the verifier it carried', async () => {
      const code = `code-${randomBytes(16).toString('hex')}`;
      const verifier = `verifier-${randomBytes(16).toString('hex')}`;
      const response = await request(sut.http).get(`/token?grant_type=authorization_code&code=${code}&code_verifier=${verifier}`);
      expect({ status: response.status, allow: response.headers.allow, error: response.body.error }).toEqual({
        status: 405,
        allow: 'POST',
        error: 'method_not_allowed',
      });
      // On a POST too, a query string is no place for them, and the log masks them the same way.
      await request(sut.http).post(`/token?code=${code}&code_verifier=${verifier}`).type('form').send('grant_type=refresh_token');
      await logsFlushed();
      expect(stdout.text()).not.toContain(code);
      expect(stdout.text()).not.toContain(verifier);
      const logged = requestLines(stdout.text()).find((line) => line.req.method === 'GET' && line.req.url.startsWith('/token?'));
      expect(logged?.req.url).toBe('/token?grant_type=authorization_code&code=[REDACTED]&code_verifier=[REDACTED]');
    });

    it("spends a real code that arrived in /token's URL: exchanging it afterwards is refused", async () => {
      const { verifier, challenge } = pkce();
      const started = await request(sut.http).get(`/authorize?${authorizeQuery({ code_challenge: challenge })}`);
      const requestId = new URLSearchParams(new URL(started.headers.location).hash.split('?')[1]).get('request')!;
      const answer = await request(sut.http).post(`/oauth/requests/${requestId}/approve`).set(alice.auth).send({}).expect(200);
      const code = new URL(answer.body.redirectTo).searchParams.get('code')!;
      const exposed = await request(sut.http).get(
        `/token?${new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier }).toString()}`,
      );
      expect(exposed.status).toBe(405);
      const exchange = await request(sut.http)
        .post('/token')
        .type('form')
        .send({ grant_type: 'authorization_code', client_id: attacker, code, code_verifier: verifier, redirect_uri: FOREIGN_REDIRECT });
      expect({ status: exchange.status, error: exchange.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    });

    it('answers other methods on the OAuth endpoints with 405 and Allow, and still takes the CORS preflight', async () => {
      const answers = await Promise.all([
        request(sut.http).put('/register').send({}),
        request(sut.http).delete('/revoke'),
        request(sut.http).patch('/token'),
        request(sut.http).delete(`/authorize?${authorizeQuery()}`),
      ]);
      expect(answers.map((answer) => [answer.status, answer.headers.allow])).toEqual([
        [405, 'POST'],
        [405, 'POST'],
        [405, 'POST'],
        [405, 'GET, POST'],
      ]);
      const preflight = await request(sut.http)
        .options('/token')
        .set({ Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('*');
    });

    it('masks a credential in the query string of any other route', async () => {
      const secret = `secret-${randomBytes(16).toString('hex')}`;
      await request(sut.http).get(`/api/${alice.userId}/tasks?access_token=${secret}`).set(alice.auth);
      await request(sut.http).get(`/no/such/route?code=${secret}&state=kept`);
      await logsFlushed();
      expect(stdout.text()).not.toContain(secret);
      const urls = requestLines(stdout.text()).map((line) => line.req.url);
      expect(urls).toContain(`/api/${alice.userId}/tasks?access_token=[REDACTED]`);
      expect(urls).toContain('/no/such/route?code=[REDACTED]&state=kept');
    });
  });
});

/**
 * Every 429 says when to come back: Retry-After in whole seconds, whichever limit refused
 * (RFC 9110 §10.2.3; RFC 6585 §4 suggests it). One app, one client address per limit.
 */
describe('every 429 carries Retry-After', () => {
  const sut = useTestApp({
    env: {
      TRUST_PROXY: 'loopback',
      AUTH_RATE_LIMIT_PER_MINUTE: '5',
      SIGN_IN_ATTEMPTS_PER_ACCOUNT: '2',
      MCP_RATE_LIMIT_PER_MINUTE: '2',
      CHAT_RATE_LIMIT_PER_MINUTE: '1',
    },
  });

  /** The first 429 of `attempts` tries, after every earlier one was not. */
  async function firstRefusal(attempts: number, send: () => request.Test): Promise<request.Response> {
    for (let i = 0; i < attempts; i++) {
      const response = await send();
      if (response.status === 429) return response;
    }
    throw new Error(`no 429 in ${attempts} attempts`);
  }

  function expectRetryAfter(response: request.Response): void {
    expect({ status: response.status, retryAfter: response.headers['retry-after'] }).toEqual({
      status: 429,
      retryAfter: expect.stringMatching(/^[1-9][0-9]*$/),
    });
  }

  it('on the per-account sign-in block, from addresses that each made one attempt', async () => {
    const email = uniqueEmail();
    let address = 0;
    const refused = await firstRefusal(5, () =>
      request(sut.http).post('/auth/login').set('X-Forwarded-For', `203.0.113.${++address}`).send({ email, password: 'wrong guess' }),
    );
    expect(address).toBe(3);
    expectRetryAfter(refused);
    expect(refused.headers['retry-after']).toBe(refused.headers['retry-after-sign-in']);
    expect(refused.body).toMatchObject({ statusCode: 429, code: 'HTTP.RATE_LIMITED' });
  });

  it('on the per-address limit', async () => {
    const refused = await firstRefusal(10, () =>
      request(sut.http).post('/auth/register').set('X-Forwarded-For', '198.51.100.1').send({ email: 'not an email' }),
    );
    expectRetryAfter(refused);
  });

  it('on the per-user MCP limit', async () => {
    const user = await signUpAndIn(sut.http);
    const refused = await firstRefusal(5, () =>
      request(sut.http)
        .post('/mcp')
        .set(user.auth)
        .set('Accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    );
    expectRetryAfter(refused);
    expect(refused.headers['retry-after']).toBe(refused.headers['retry-after-mcp']);
  });

  it('on the per-user chat limit', async () => {
    const user = await signUpAndIn(sut.http);
    const refused = await firstRefusal(3, () =>
      request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message: 'list my tasks' }),
    );
    expectRetryAfter(refused);
  });

  it("on the OAuth endpoints' own limit (the MCP SDK's, 20 registrations an hour per address)", async () => {
    const refused = await firstRefusal(25, () => request(sut.http).post('/register').set('X-Forwarded-For', '192.0.2.9').send({}));
    expectRetryAfter(refused);
    expect(refused.body.error).toBe('too_many_requests');
  });
});
