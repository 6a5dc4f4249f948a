import {
  assertAcceptablePassword,
  assertCurrentCredentials,
  CredentialsChangedError,
  InvalidEmailError,
  InvalidPasswordError,
  normalizeEmail,
} from '../../../src/domain/identity/user';

describe('normalizeEmail', () => {
  it('trims and lower-cases', () => {
    expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
  });

  it.each(['', 'ada', 'ada@', '@example.com', 'ada @example.com', `${'a'.repeat(250)}@x.io`])('rejects %j', (raw) => {
    expect(() => normalizeEmail(raw)).toThrow(InvalidEmailError);
  });
});

describe('assertAcceptablePassword', () => {
  it('accepts 8 to 256 characters and rejects the rest', () => {
    expect(() => assertAcceptablePassword('12345678')).not.toThrow();
    expect(() => assertAcceptablePassword('1234567')).toThrow(InvalidPasswordError);
    expect(() => assertAcceptablePassword('x'.repeat(257))).toThrow(InvalidPasswordError);
  });

  it('names the field it checks', () => {
    expect(thrown(() => assertAcceptablePassword('short', 'newPassword'))).toMatchObject({
      field: 'newPassword',
      message: 'newPassword must be between 8 and 256 characters',
    });
  });
});

describe('assertCurrentCredentials', () => {
  it("accepts a token of the account's current credentials version, and refuses any other", () => {
    expect(() => assertCurrentCredentials({ credentialsVersion: 2 }, 2)).not.toThrow();
    for (const tokenVersion of [0, 1, 3]) {
      const error = thrown(() => assertCurrentCredentials({ credentialsVersion: 2 }, tokenVersion));
      expect(error).toBeInstanceOf(CredentialsChangedError);
      expect(error).toMatchObject({
        code: 'AUTH.UNAUTHENTICATED',
        kind: 'unauthenticated',
        message: 'The password was changed: sign in again',
      });
    }
  });
});

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
