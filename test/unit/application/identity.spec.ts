import type { AccessTokenService, Principal } from '../../../src/application/identity/ports/access-token-service.port';
import type { SignUpPolicy } from '../../../src/application/identity/identity-settings';
import { LogInUseCase } from '../../../src/application/identity/log-in.use-case';
import { RegisterUserUseCase } from '../../../src/application/identity/register-user.use-case';
import {
  EmailAlreadyRegisteredError,
  InvalidCredentialsError,
  InvalidPasswordError,
  SignUpClosedError,
} from '../../../src/domain/identity/user';
import { InMemoryUserRepository } from '../../fakes/in-memory-user.repository';
import { PlainTextPasswordHasher } from '../../fakes/plain-text-password-hasher';

class RecordingTokens implements AccessTokenService {
  issued: Principal[] = [];
  issue(principal: Principal) {
    this.issued.push(principal);
    return Promise.resolve({ accessToken: `token-for-${principal.userId}`, expiresIn: 3600 });
  }
  verify() {
    return Promise.resolve(null);
  }
}

function setup(signUp: SignUpPolicy = 'open') {
  const users = new InMemoryUserRepository();
  const hasher = new PlainTextPasswordHasher();
  const tokens = new RecordingTokens();
  return {
    users,
    hasher,
    tokens,
    register: new RegisterUserUseCase(users, hasher, { signUp }),
    logIn: () => new LogInUseCase(users, hasher, tokens),
  };
}

describe(RegisterUserUseCase.name, () => {
  it('stores the normalised email and a hash, never the password, and returns no hash', async () => {
    const { register: sut, users } = setup();
    const account = await sut.execute({ email: ' Ada@Example.com ', password: 'long enough' });
    expect(account).toEqual({ id: expect.any(String), email: 'ada@example.com', role: 'user' });
    expect(users.users.get(account.id)?.passwordHash).toBe('plain:long enough');
  });

  it('gives every account the user role, whatever its address', async () => {
    const { register: sut } = setup();
    for (const email of ['admin@example.com', 'root@localhost.localdomain', 'audit-team@example.com']) {
      await expect(sut.execute({ email, password: 'long enough' })).resolves.toMatchObject({ role: 'user' });
    }
  });

  it('refuses everyone while sign-up is closed, before looking at the input', async () => {
    const { register: sut, users } = setup('closed');
    await expect(sut.execute({ email: 'ada@example.com', password: 'long enough' })).rejects.toThrow(SignUpClosedError);
    await expect(sut.execute({ email: 'not an email', password: 'x' })).rejects.toThrow(SignUpClosedError);
    expect(users.users.size).toBe(0);
  });

  it('refuses short passwords and taken emails', async () => {
    const { register: sut } = setup();
    await expect(sut.execute({ email: 'a@example.com', password: 'short' })).rejects.toThrow(InvalidPasswordError);
    await sut.execute({ email: 'a@example.com', password: 'long enough' });
    await expect(sut.execute({ email: 'A@example.com', password: 'long enough' })).rejects.toThrow(EmailAlreadyRegisteredError);
  });
});

describe(LogInUseCase.name, () => {
  it('issues a token for the right password', async () => {
    const { register, logIn, tokens } = setup();
    const account = await register.execute({ email: 'a@example.com', password: 'long enough' });
    await expect(logIn().execute({ email: 'A@example.com', password: 'long enough' })).resolves.toEqual({
      accessToken: `token-for-${account.id}`,
      expiresIn: 3600,
      userId: account.id,
    });
    expect(tokens.issued).toEqual([{ userId: account.id, email: 'a@example.com', role: 'user' }]);
  });

  it('fails the same way for a wrong password, an unknown email and a malformed email', async () => {
    const { register, logIn, hasher } = setup();
    await register.execute({ email: 'a@example.com', password: 'long enough' });
    const sut = logIn();
    for (const attempt of [
      { email: 'a@example.com', password: 'wrong password' },
      { email: 'nobody@example.com', password: 'long enough' },
      { email: 'not an email', password: 'long enough' },
    ]) {
      await expect(sut.execute(attempt)).rejects.toThrow(new InvalidCredentialsError());
    }
    // Every failure paid for one hash verification, so timing does not tell them apart.
    expect(hasher.verifications).toBe(3);
  });

  it("puts the account's stored role in the token and never changes it", async () => {
    const { register, logIn, users, tokens } = setup();
    const account = await register.execute({ email: 'a@example.com', password: 'long enough' });
    await users.updateRole(account.id, 'admin');
    await logIn().execute({ email: 'a@example.com', password: 'long enough' });
    expect(tokens.issued).toEqual([{ userId: account.id, email: 'a@example.com', role: 'admin' }]);
    expect(users.users.get(account.id)?.role).toBe('admin');
  });
});
