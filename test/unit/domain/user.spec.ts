import { assertAcceptablePassword, InvalidEmailError, InvalidPasswordError, normalizeEmail } from '../../../src/domain/identity/user';

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
});
