import {
  changesFromWords,
  changesInWords,
  foldedSummary,
  NOTHING_TO_SUMMARISE,
  shortenedAtWord,
  type TaskChange,
} from '../../../src/domain/chat/summary-facts';

const added = (number: number, title: string): TaskChange => ({ kind: 'added', number, title });
const completed = (number: number, title: string): TaskChange => ({ kind: 'completed', number, title });

/** Words, in the sense a cut would break: runs of letters and digits. */
const words = (text: string) => new Set(text.match(/[\p{L}\p{N}]+/gu) ?? []);

describe(foldedSummary.name, () => {
  it('says what the person asked and what was done, by number and title', () => {
    const sut = foldedSummary(
      null,
      {
        asked: ['add milk', 'add bread', 'finish task 1', 'rename task 2 to rye bread', 'delete task 1'],
        done: [
          added(1, 'milk'),
          added(2, 'bread'),
          completed(1, 'milk'),
          { kind: 'renamed', number: 2, previousTitle: 'bread', title: 'rye bread' },
          { kind: 'deleted', number: 1, title: 'milk' },
        ],
      },
      1_500,
    );

    expect(sut).toBe(
      'The person sent 5 messages: "add milk", "add bread", "finish task 1", "rename task 2 to rye bread" and "delete task 1". ' +
        'Added 2 tasks: task 1 "milk" and task 2 "bread". Completed 1 task: task 1 "milk". ' +
        'Renamed 1 task: task 2 from "bread" to "rye bread". Deleted 1 task: task 1 "milk".',
    );
  });

  it('folds its previous summary in whole: the counts go on and the lists continue, as if summarised at once', () => {
    const first = { asked: ['add milk', 'finish task 1'], done: [added(1, 'milk'), completed(1, 'milk')] };
    const second = {
      asked: ['add bread', 'make task 2 high priority'],
      done: [added(2, 'bread'), { kind: 'changed', number: 2, title: 'bread' } as const],
    };

    const sut = foldedSummary(foldedSummary(null, first, 1_500), second, 1_500);

    expect(sut).toBe(foldedSummary(null, { asked: [...first.asked, ...second.asked], done: [...first.done, ...second.done] }, 1_500));
    expect(sut.match(/The person sent/g)).toHaveLength(1);
  });

  it('counts everything but names only the latest few', () => {
    const done = Array.from({ length: 20 }, (_, i) => added(i + 1, `errand ${i + 1}`));

    const sut = foldedSummary(null, { asked: done.map((change) => `add ${change.title}`), done }, 1_500);

    expect(sut).toBe(
      'The person sent 20 messages; the latest: "add errand 15", "add errand 16", "add errand 17", "add errand 18", "add errand 19" and "add errand 20". ' +
        'Added 20 tasks; the latest: task 13 "errand 13", task 14 "errand 14", task 15 "errand 15", task 16 "errand 16", ' +
        'task 17 "errand 17", task 18 "errand 18", task 19 "errand 19" and task 20 "errand 20".',
    );
  });

  it('stays within its bound over many folds by naming fewer, and never cuts a word', () => {
    const title = (n: number) => `water the tomatoes in the greenhouse behind the shed before the heat of the day number ${n}`;
    const asked: string[] = [];
    const titles = Array.from({ length: 40 }, (_, i) => title(i + 1));
    let sut: string | null = null;
    for (let n = 1; n <= 40; n++) {
      const turn = {
        asked: [`add ${title(n)}`, `finish task ${n}`],
        done: [added(n, title(n)), completed(n, title(n)), { kind: 'deleted', number: n, title: title(n) } as const],
      };
      asked.push(...turn.asked);
      sut = foldedSummary(sut, turn, 600);
      expect(sut.length).toBeLessThanOrEqual(600);
    }

    expect(sut).toMatch(
      /^The person sent 80 messages; the latest: .* Added 40 tasks; the latest: .* Completed 40 tasks; the latest: .* Deleted 40 tasks/,
    );
    // Outside quotes, the summary's own words and counts.
    const fixed = words('The person sent messages the latest Added Completed Deleted tasks task and');
    const unquoted = (sut ?? '').replace(/"(?:[^"\\]|\\.)*"/g, ' ');
    expect([...words(unquoted)].filter((word) => !fixed.has(word) && !/^\d+$/.test(word))).toEqual([]);
    // What is quoted is the message or title itself, or its first words and "…".
    for (const [quote] of (sut ?? '').matchAll(/"(?:[^"\\]|\\.)*"/g)) {
      const text = JSON.parse(quote) as string;
      const said = [...asked, ...titles];
      const whole = text.endsWith('…') ? said.some((name) => `${name} `.startsWith(`${text.slice(0, -1)} `)) : said.includes(text);
      expect({ text, whole }).toEqual({ text, whole: true });
    }
  });

  it('keeps a summary written otherwise (by a model) in front, shortened at a word, once', () => {
    const byModel = `The person is planning a move to Lisbon and asked for packing tasks. ${'They prefer short titles and morning reminders. '.repeat(20)}`;

    const once = foldedSummary(byModel, { asked: ['add book the van'], done: [added(7, 'book the van')] }, 1_500);
    const twice = foldedSummary(once, { asked: ['finish task 7'], done: [completed(7, 'book the van')] }, 1_500);

    expect(once).toMatch(
      /^Before that: "The person is planning a move to Lisbon .*[a-z]…"\. The person sent 1 message: "add book the van"\./,
    );
    expect(once.indexOf('Before that')).toBeLessThan(once.indexOf('The person sent'));
    expect(twice.match(/Before that/g)).toHaveLength(1);
    expect(twice).toContain(`${once.slice(0, once.indexOf('". ') + 3)}The person sent 2 messages: "add book the van" and "finish task 7".`);
    expect(twice).toContain('Completed 1 task: task 7 "book the van".');
  });

  it('reads back names holding quotes, commas and "and"', () => {
    const title = 'Call "Ann", Bob and Carl\\Dee';
    const first = foldedSummary(null, { asked: [`add ${title}`], done: [added(3, title)] }, 1_500);

    const sut = foldedSummary(first, { asked: ['finish task 3'], done: [completed(3, title)] }, 1_500);

    expect(sut).toContain(`Added 1 task: task 3 ${JSON.stringify(title)}. Completed 1 task: task 3 ${JSON.stringify(title)}.`);
    expect(sut).toContain(`The person sent 2 messages: ${JSON.stringify(`add ${title}`)} and "finish task 3".`);
  });

  it('says so when there is nothing to summarise, and folds that in', () => {
    const nothing = foldedSummary(null, { asked: [], done: [] }, 1_500);

    expect(nothing).toBe(NOTHING_TO_SUMMARISE);
    expect(foldedSummary(nothing, { asked: ['hello'], done: [] }, 1_500)).toBe('The person sent 1 message: "hello".');
  });
});

describe(changesInWords.name, () => {
  it('words what a turn did so that it reads back', () => {
    const changes: TaskChange[] = [
      added(1, 'milk, eggs and "bread"'),
      completed(1, 'milk, eggs and "bread"'),
      { kind: 'renamed', number: 2, previousTitle: 'call mum', title: 'call mum and dad' },
    ];

    const sut = changesInWords(changes);

    expect(sut).toBe(
      'Done: added task 1 "milk, eggs and \\"bread\\"", completed task 1 "milk, eggs and \\"bread\\"" and renamed task 2 from "call mum" to "call mum and dad".',
    );
    expect(changesFromWords(sut)).toEqual(changes);
  });

  it('reads nothing from another line', () => {
    expect(changesFromWords('Person: Done: added task 1 "x".')).toBeNull();
    expect(changesFromWords('Done: added task one "x".')).toBeNull();
  });
});

describe(shortenedAtWord.name, () => {
  it('ends a long text at the last whole word that fits, with "…"', () => {
    expect(shortenedAtWord('add errand number nine to the list', 20)).toBe('add errand number…');
    expect(shortenedAtWord('add errand number nine', 18)).toBe('add errand number…');
    expect(shortenedAtWord('short one', 20)).toBe('short one');
  });

  it('puts a text on one line and gives "…" alone when not even its first word fits', () => {
    expect(shortenedAtWord('two\n\nlines', 20)).toBe('two lines');
    expect(shortenedAtWord('supercalifragilistic', 10)).toBe('…');
  });
});
