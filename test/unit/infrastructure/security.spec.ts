import jwt from 'jsonwebtoken';
import { JwtAccessTokenService } from '../../../src/infrastructure/security/jwt-access-token.service';
import { ScryptPasswordHasher } from '../../../src/infrastructure/security/scrypt-password-hasher';

describe(ScryptPasswordHasher.name, () => {
  const sut = new ScryptPasswordHasher();

  it('salts: the same password hashes differently and both verify', async () => {
    const [a, b] = await Promise.all([sut.hash('hunter2hunter2'), sut.hash('hunter2hunter2')]);
    expect(a).not.toBe(b);
    expect(a).not.toContain('hunter2');
    await expect(sut.verify('hunter2hunter2', a)).resolves.toBe(true);
    await expect(sut.verify('hunter2hunter2', b)).resolves.toBe(true);
  });

  it('rejects a wrong password and an unparseable hash', async () => {
    const hash = await sut.hash('hunter2hunter2');
    await expect(sut.verify('hunter3hunter3', hash)).resolves.toBe(false);
    await expect(sut.verify('hunter2hunter2', 'bcrypt$whatever')).resolves.toBe(false);
  });

  it("hashes at OWASP's scrypt minimum by default, and verifies any hash with the parameters it carries", async () => {
    expect((await sut.hash('hunter2hunter2')).split('$').slice(0, 4)).toEqual(['scrypt', '32768', '8', '3']);
    const cheap = await new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }).hash('hunter2hunter2');
    expect(cheap.split('$').slice(0, 4)).toEqual(['scrypt', '1024', '8', '1']);
    await expect(sut.verify('hunter2hunter2', cheap)).resolves.toBe(true);
  });
});

describe(JwtAccessTokenService.name, () => {
  const secret = 'a-secret-of-at-least-thirty-two-characters';
  const principal = {
    userId: '3f7c1a52-1111-4222-8333-944455556666',
    email: 'a@example.com',
    role: 'user' as const,
    credentialsVersion: 3,
  };

  it('round-trips a principal, its credentials version included', async () => {
    const sut = new JwtAccessTokenService(secret, 3600);
    const { accessToken, expiresIn } = await sut.issue(principal);
    expect(expiresIn).toBe(3600);
    expect(jwt.decode(accessToken)).toMatchObject({ sub: principal.userId, cv: 3 });
    const { auth_time } = jwt.decode(accessToken) as { auth_time: number };
    expect(Math.abs(auth_time * 1000 - Date.now())).toBeLessThan(60_000);
    await expect(sut.verify(accessToken)).resolves.toEqual({ ...principal, signedInAt: new Date(auth_time * 1000) });
  });

  it('carries the sign-in time on through a renewal, whose lifetime never exceeds the usual one', async () => {
    const sut = new JwtAccessTokenService(secret, 3600);
    const signedInAt = new Date(Math.floor(Date.now() / 1000 - 7200) * 1000);
    const short = await sut.issue(principal, { signedInAt, expiresInSeconds: 90 });
    expect(short.expiresIn).toBe(90);
    await expect(sut.verify(short.accessToken)).resolves.toEqual({ ...principal, signedInAt });
    expect((await sut.issue(principal, { signedInAt, expiresInSeconds: 86_400 })).expiresIn).toBe(3600);
  });

  it('reads a token without the credentials version claim, issued before it existed, as version 0', async () => {
    const sut = new JwtAccessTokenService(secret, 3600);
    const old = jwt.sign({ sub: principal.userId, email: principal.email, role: 'user' }, secret, { issuer: 'bridle', expiresIn: 600 });
    const { iat } = jwt.decode(old) as { iat: number };
    await expect(sut.verify(old)).resolves.toEqual({ ...principal, credentialsVersion: 0, signedInAt: new Date(iat * 1000) });
  });

  it.each([-1, 1.5, '1', true])('refuses a credentials version claim of %j', async (cv) => {
    const sut = new JwtAccessTokenService(secret, 3600);
    const token = jwt.sign({ sub: principal.userId, email: principal.email, role: 'user', cv }, secret, {
      issuer: 'bridle',
      expiresIn: 600,
    });
    await expect(sut.verify(token)).resolves.toBeNull();
  });

  it('refuses forged, expired, foreign-issuer and garbage tokens', async () => {
    const sut = new JwtAccessTokenService(secret, 3600);
    const claims = { sub: principal.userId, email: principal.email, role: 'admin' };
    const forged = jwt.sign(claims, 'another-secret-of-thirty-two-characters!', { issuer: 'bridle' });
    const expired = jwt.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }, secret, { issuer: 'bridle' });
    const otherIssuer = jwt.sign(claims, secret, { issuer: 'someone-else' });
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`;
    for (const token of [forged, expired, otherIssuer, unsigned, 'garbage', '']) {
      await expect(sut.verify(token)).resolves.toBeNull();
    }
  });
});
