import { holdsScope, parseScopes, SCOPES } from '../../../src/domain/identity/scopes';
import { validateTokenRequest } from '../../../src/domain/identity/personal-access-token';

describe('scopes', () => {
  it('expands family:* to the family, in the canonical order, and names what it does not know', () => {
    expect(parseScopes(['campaigns:*', 'tasks:read', 'tasks:read'])).toEqual({
      scopes: ['tasks:read', 'campaigns:read', 'campaigns:write'],
      unknown: [],
    });
    expect(parseScopes(['tasks:rule', 'nothing:*', 'TASKS:READ', ''])).toEqual({
      scopes: [],
      unknown: ['tasks:rule', 'nothing:*', 'TASKS:READ', ''],
    });
    expect(parseScopes([...SCOPES]).scopes).toEqual(SCOPES);
  });

  it('lets write imply read within a family, and nothing else', () => {
    expect(holdsScope(['tasks:write'], 'tasks:read')).toBe(true);
    expect(holdsScope(['tasks:read'], 'tasks:write')).toBe(false);
    expect(holdsScope(['campaigns:write'], 'tasks:read')).toBe(false);
    expect(holdsScope(['tasks:write'], 'chat')).toBe(false);
    expect(holdsScope(['chat'], 'chat')).toBe(true);
    expect(holdsScope([], 'audit:read')).toBe(false);
  });
});

describe('a personal access token request', () => {
  const now = new Date('2026-11-23T12:00:00Z');

  it('trims the name, expands scopes and expires in 90 days unless told', () => {
    expect(validateTokenRequest({ name: '  Backup  ', scopes: ['tasks:*'] }, now)).toEqual({
      name: 'Backup',
      scopes: ['tasks:read', 'tasks:write'],
      expiresAt: new Date('2027-02-21T12:00:00Z'),
    });
  });

  it.each([
    [{ name: ' ', scopes: ['chat'] }, 'name'],
    [{ name: 'a\u0000b', scopes: ['chat'] }, 'name'],
    [{ name: 'Backup \u202Epukcab', scopes: ['chat'] }, 'name'],
    [{ name: 'x'.repeat(101), scopes: ['chat'] }, 'name'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['admin'] }, 'scopes'],
    [{ name: 'x', scopes: ['chat'], expiresInDays: 0 }, 'expiresInDays'],
    [{ name: 'x', scopes: ['chat'], expiresInDays: 367 }, 'expiresInDays'],
    [{ name: 'x', scopes: ['chat'], expiresInDays: Number.NaN }, 'expiresInDays'],
  ])('refuses %j naming %s', (request, field) => {
    expect(() => validateTokenRequest(request, now)).toThrow(expect.objectContaining({ field, code: 'TOKENS.INVALID' }));
  });
});
