import { changesSinceShown, sinceAsked, unchangedSinceShown } from '../../../../src/domain/todo/deletion';

describe(changesSinceShown.name, () => {
  const shown = [
    { number: 11, title: 'a' },
    { number: 12, title: 'x' },
    { number: 13, title: 'c' },
  ];

  it('finds the tasks gone and renamed since they were shown', () => {
    const current = [
      { number: 11, title: 'a' },
      { number: 13, title: 'c2' },
    ];
    expect(changesSinceShown(shown, current)).toEqual({
      gone: [{ number: 12, title: 'x' }],
      renamed: [{ number: 13, was: 'c', now: 'c2' }],
    });
    expect(unchangedSinceShown(shown, current)).toBe(false);
    expect(unchangedSinceShown(shown, [...shown].reverse())).toBe(true);
  });
});

describe(sinceAsked.name, () => {
  const gone = (...numbers: number[]) => numbers.map((number) => ({ number, title: `t${number}` }));

  it('names up to three changes and counts more', () => {
    expect(sinceAsked({ gone: gone(12), renamed: [] })).toBe("Since I asked, task 12 't12' is gone");
    expect(sinceAsked({ gone: gone(1, 2), renamed: [{ number: 3, was: 'a', now: 'b' }] })).toBe(
      "Since I asked, tasks 1 't1' and 2 't2' are gone and task 3 'a' was renamed 'b'",
    );
    expect(sinceAsked({ gone: gone(1, 2, 3), renamed: [{ number: 4, was: 'a', now: 'b' }] })).toBe(
      'Since I asked, 3 of those tasks are gone and 1 was renamed',
    );
    expect(sinceAsked({ gone: gone(1, 2, 3, 4), renamed: [] })).toBe('Since I asked, 4 of those tasks are gone');
  });

  it('quotes each title cut to 60 characters', () => {
    const long = `${'z'.repeat(199)}!`;
    expect(sinceAsked({ gone: [{ number: 1, title: long }], renamed: [{ number: 2, was: long, now: 'b' }] })).toBe(
      `Since I asked, task 1 '${'z'.repeat(59)}…' is gone and task 2 '${'z'.repeat(59)}…' was renamed 'b'`,
    );
  });
});
