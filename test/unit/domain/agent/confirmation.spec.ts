import {
  bulkChangeArguments,
  bulkChangeCalls,
  bulkChangePrompt,
  deletionPrompt,
  destructiveToolNotice,
  mayDestroy,
  titlesInBrief,
} from '../../../../src/domain/agent/confirmation';

describe(deletionPrompt.name, () => {
  const titles = (count: number) => Array.from({ length: count }, (_, i) => `T${i + 1}`);

  it('names up to ten tasks one by one, with or without a scope', () => {
    expect(deletionPrompt(['Dentist'], 'all')).toBe("Do you really want to delete 'Dentist'? Reply 'yes delete' to confirm.");
    expect(deletionPrompt(titles(10), 'all')).toBe(
      "Do you really want to delete 10 tasks: 'T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9' and 'T10'? Reply 'yes delete' to confirm.",
    );
  });

  it('counts a longer list asked for by scope, and names a few of a longer list asked for by number', () => {
    expect(deletionPrompt(titles(130), 'all')).toBe("Do you really want to delete all 130 tasks? Reply 'yes delete' to confirm.");
    expect(deletionPrompt(titles(11), 'completed')).toBe(
      "Do you really want to delete all 11 completed tasks? Reply 'yes delete' to confirm.",
    );
    expect(deletionPrompt(titles(130))).toBe(
      "Do you really want to delete 130 tasks: 'T1', 'T2', 'T3' and 127 more? Reply 'yes delete' to confirm.",
    );
  });

  it('joins titles in brief', () => {
    expect(titlesInBrief(['A'])).toBe("'A'");
    expect(titlesInBrief(['A', 'B'])).toBe("'A' and 'B'");
    expect(titlesInBrief(titles(11))).toBe("'T1', 'T2', 'T3' and 8 more");
  });
});

describe(mayDestroy.name, () => {
  it.each([
    ['chat', false, false, 'confirm-in-chat', false],
    ['chat', true, false, 'confirm-in-chat', true],
    ['chat', false, true, 'confirm-in-chat', true],
    ['chat', false, false, 'allow', false],
    ['mcp', false, false, 'confirm-in-chat', false],
    ['mcp', false, false, 'allow', true],
    ['outreach', false, false, 'allow', false],
  ] as const)('%s call (dry run %s, confirmed %s) with MCP mode %s: %s', (source, dryRun, confirmed, mode, allowed) => {
    expect(mayDestroy({ source, dryRun, confirmed }, mode)).toBe(allowed);
  });
});

describe(destructiveToolNotice.name, () => {
  it('tells each channel what the server does', () => {
    expect(destructiveToolNotice('chat', 'allow')).toBe("Always needs the person's confirmation, which the server asks for.");
    expect(destructiveToolNotice('mcp', 'confirm-in-chat')).toMatch(
      /^Over this connection it deletes only after the person confirms in their MCP client/,
    );
    expect(destructiveToolNotice('mcp', 'allow')).toMatch(/^Over this connection it deletes at once/);
  });
});

describe(bulkChangePrompt.name, () => {
  it('names each change by its verb and target', () => {
    expect(
      bulkChangePrompt([
        { tool: 'complete_task', arguments: { number: 1 } },
        { tool: 'update_task', arguments: { query: 'rent', priority: 'high' } },
        { tool: 'complete_task', arguments: {} },
        { tool: 'complete_task', arguments: { number: 4 } },
      ]),
    ).toBe("That's a big action: complete task 1, update 'rent', complete a task and complete task 4. Confirm with 'yes'.");
  });

  it('counts the rest of a long list', () => {
    const calls = Array.from({ length: 12 }, (_, i) => ({ tool: 'complete_task', arguments: { number: i + 1 } }));
    expect(bulkChangePrompt(calls)).toBe(
      "That's a big action: complete task 1, complete task 2, complete task 3 and 9 more. Confirm with 'yes'.",
    );
  });
});

describe(bulkChangeCalls.name, () => {
  it('reads back what bulkChangeArguments stored', () => {
    const calls = [{ tool: 'complete_task', arguments: { number: 1 } }];
    expect(bulkChangeCalls(bulkChangeArguments(calls))).toEqual(calls);
  });

  it.each([
    [{}],
    [{ calls: [] }],
    [{ calls: [{ tool: 1, arguments: {} }] }],
    [{ calls: [{ tool: 'x', arguments: [] }] }],
    [{ calls: [null] }],
  ])('refuses %j', (args) => {
    expect(bulkChangeCalls(args)).toBeNull();
  });
});
