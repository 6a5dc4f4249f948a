import { AdminUsageError, parseAdminCommand } from '../../../src/interfaces/cli/admin-command';

describe('admin.js audit-export', () => {
  it('takes --out and an optional range, in any order', () => {
    expect(parseAdminCommand(['audit-export', '--out', 'pack'])).toEqual({
      name: 'audit-export',
      from: undefined,
      to: undefined,
      out: 'pack',
    });
    expect(parseAdminCommand(['audit-export', '--to', '200', '--out', 'pack', '--from', '7'])).toEqual({
      name: 'audit-export',
      from: 7,
      to: 200,
      out: 'pack',
    });
  });

  it.each([
    [['audit-export'], 'needs --out'],
    [['audit-export', '--out'], '--out takes a value'],
    [['audit-export', '--out', 'p', '--from', '0'], '--from must be a whole number from 1'],
    [['audit-export', '--out', 'p', '--to', '1.5'], '--to must be a whole number from 1'],
    [['audit-export', '--out', 'p', '--full', 'x'], 'does not take --full'],
  ])('refuses %j as a usage error', (argv, message) => {
    expect(() => parseAdminCommand(argv)).toThrow(AdminUsageError);
    expect(() => parseAdminCommand(argv)).toThrow(message);
  });
});
