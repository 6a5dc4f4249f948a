import { createHash, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { TEST_JWT_SECRET, useTestApp } from '../support/test-app';

const REDIRECT_URI = 'http://127.0.0.1:53682/callback';
const MAX_AGE_SECONDS = 12 * 3600;

/**
 * POST /auth/refresh, what the console calls while its person is active: a still-valid session
 * token becomes a fresh one of the same sign-in, and nothing else does; no renewal reaches past
 * SESSION_MAX_AGE after the sign-in, and a changed password ends renewal like any request.
 */
describe('POST /auth/refresh', () => {
  const sut = useTestApp({ env: { JWT_EXPIRES_IN: '600' } });
  const ada = sut.user();

  const refresh = (token: string) => request(sut.http).post('/auth/refresh').set('Authorization', `Bearer ${token}`);
  const claims = (token: string) => jwt.decode(token) as { sub: string; cv: number; auth_time: number; iat: number; exp: number };

  /** A session token as the server signs them, with `auth_time` set `age` seconds ago: one renewed for that long. */
  function renewedFor(user: SignedInUser, ageSeconds: number): string {
    const now = Math.floor(Date.now() / 1000);
    const { cv } = claims(user.token);
    return jwt.sign({ sub: user.userId, email: user.email, role: 'user', cv, auth_time: now - ageSeconds }, TEST_JWT_SECRET, {
      algorithm: 'HS256',
      issuer: 'bridle',
      expiresIn: 600,
    });
  }

  it('gives a fresh token of the same sign-in and account, which works; the old one still works until it expires', async () => {
    const res = await refresh(ada.token).expect(200);
    expect(res.body).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 600, userId: ada.userId });
    const fresh = res.body.accessToken as string;
    expect(claims(fresh)).toMatchObject({ sub: ada.userId, cv: claims(ada.token).cv, auth_time: claims(ada.token).auth_time });
    expect(claims(fresh).exp - claims(fresh).iat).toBe(600);
    const me = await request(sut.http).get('/auth/me').set('Authorization', `Bearer ${fresh}`).expect(200);
    expect(me.body).toMatchObject({ id: ada.userId, email: ada.email });
    // Renewing the renewed token carries the same sign-in on again.
    const again = (await refresh(fresh).expect(200)).body.accessToken as string;
    expect(claims(again).auth_time).toBe(claims(ada.token).auth_time);
    await request(sut.http).get('/auth/me').set(ada.auth).expect(200);
  });

  it('cuts the last renewal short at the cap, and refuses once the sign-in is older than SESSION_MAX_AGE (12 hours)', async () => {
    const nearlyOld = await refresh(renewedFor(ada, MAX_AGE_SECONDS - 120)).expect(200);
    expect(nearlyOld.body.expiresIn).toBeGreaterThan(100);
    expect(nearlyOld.body.expiresIn).toBeLessThanOrEqual(120);
    const { auth_time, exp } = claims(nearlyOld.body.accessToken as string);
    expect(exp).toBeLessThanOrEqual(auth_time + MAX_AGE_SECONDS);

    const tooOld = renewedFor(ada, MAX_AGE_SECONDS + 5);
    // The token itself is still good for other requests until it expires; it only cannot be renewed.
    await request(sut.http).get('/auth/me').set('Authorization', `Bearer ${tooOld}`).expect(200);
    const refused = await refresh(tooOld).expect(401);
    expect(refused.body).toMatchObject({
      statusCode: 401,
      code: 'AUTH.UNAUTHENTICATED',
      message: expect.stringMatching(/12 hours old.*sign in again/),
    });
  });

  it('refuses a token issued before a password change, and renews the one the change gave', async () => {
    const bob = await signUpAndIn(sut.http);
    const changed = await request(sut.http)
      .post('/auth/password')
      .set(bob.auth)
      .send({ currentPassword: 'correct horse battery', newPassword: 'a brand new passphrase' })
      .expect(200);
    const refused = await refresh(bob.token).expect(401);
    expect(refused.body).toMatchObject({ code: 'AUTH.UNAUTHENTICATED', message: 'The password was changed: sign in again' });
    await refresh(changed.body.accessToken as string).expect(200);
  });

  it('refuses a personal access token (403) and an OAuth access token (401): only a session is renewed', async () => {
    const pat = await request(sut.http)
      .post(`/api/${ada.userId}/tokens`)
      .set(ada.auth)
      .send({ name: 'script', scopes: ['tasks:read', 'tasks:write', 'audit:read'], expiresInDays: 30 })
      .expect(201);
    expect((await refresh(pat.body.token as string).expect(403)).body).toMatchObject({ code: 'AUTH.SESSION_REQUIRED' });

    const oauth = await oauthAccessToken(ada);
    expect(oauth).toMatch(/^bridle_oat_/);
    await request(sut.http)
      .post('/mcp')
      .set('Authorization', `Bearer ${oauth}`)
      .send({})
      .expect((res) => expect(res.status).not.toBe(401));
    expect((await refresh(oauth).expect(401)).body).toMatchObject({ code: 'AUTH.UNAUTHENTICATED' });
    await refresh('garbage').expect(401);
    await request(sut.http).post('/auth/refresh').expect(401);
  });

  /** An MCP client's OAuth access token for `person`, by the authorization-code flow with PKCE. */
  async function oauthAccessToken(person: SignedInUser): Promise<string> {
    const clientId = (
      await request(sut.http)
        .post('/register')
        .send({ client_name: 'Refresh test', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' })
        .expect(201)
    ).body.client_id as string;
    const verifier = randomBytes(32).toString('base64url');
    const resource = new URL('/mcp', sut.http).href;
    const authorize = new URL('/authorize', sut.http);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 's',
      resource,
      scope: 'tasks:read',
    }).toString();
    const consent = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    const requestId = new URLSearchParams(consent.hash.split('?')[1]).get('request')!;
    const approved = await request(sut.http).post(`/oauth/requests/${requestId}/approve`).set(person.auth).send({}).expect(200);
    const code = new URL(approved.body.redirectTo as string).searchParams.get('code')!;
    const tokens = await request(sut.http)
      .post('/token')
      .type('form')
      .send({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT_URI, resource })
      .expect(200);
    return tokens.body.access_token as string;
  }
});
