import { changeTask, draftTask, InvalidTaskError, type Task } from '../../../src/domain/todo/task';
import { aTask } from '../../factories/tasks';

const at = (iso: string) => new Date(iso);

const task = (overrides: Partial<Task> = {}): Task => aTask({ createdAt: at('2026-01-01T00:00:00Z'), ...overrides });

describe('draftTask', () => {
  it('trims the title and defaults priority to medium and description to null', () => {
    expect(draftTask({ title: '  Buy milk \n' })).toEqual({ title: 'Buy milk', description: null, priority: 'medium' });
  });

  it.each([[''], ['   '], ['x'.repeat(201)]])('rejects the title %j naming the field', (title) => {
    const attempt = () => draftTask({ title });
    expect(attempt).toThrow(InvalidTaskError);
    expect(attempt).toThrow(/title/);
  });

  it.each([
    ['a line break', 'Buy milk\nand eggs', 'U+000A'],
    ['a tab', 'Buy\tmilk', 'U+0009'],
    ['a C1 next-line, read as a line break', 'Pay\u0085bill', 'U+000A'],
  ])('refuses a title with %s, naming the field and the character', (_, title, code) => {
    const attempt = () => draftTask({ title });
    expect(attempt).toThrow(InvalidTaskError);
    expect(attempt).toThrow(`title must be one line with no control or bidi characters (found ${code})`);
    expect(() => changeTask(task(), { title }, at('2026-01-02T00:00:00Z'))).toThrow(InvalidTaskError);
  });

  it.each([
    ['a bell', 'Buy milk\u0007', 'Buy milk'],
    ['an escape sequence', '\u001b[31mBuy milk\u001b[0m', 'Buy milk'],
    ['a right-to-left override', 'Pay \u202Eeulav\u202C invoice', 'Pay eulav invoice'],
    ['a right-to-left isolate', 'Pay \u2067x\u2069', 'Pay x'],
    ['a left-to-right mark', 'Pay\u200E bill', 'Pay bill'],
    ['a zero-width space', 'Buy\u200B milk', 'Buy milk'],
    ['a soft hyphen and a BOM', '\uFEFFRe\u00ADnew passport', 'Renew passport'],
    ['tag characters', 'Buy milk\u{E0049}\u{E0067}', 'Buy milk'],
    ['a decomposed accent', 'Caf\u0065\u0301', 'Café'],
  ])('cleans a title with %s', (_, title, cleaned) => {
    expect(draftTask({ title }).title).toBe(cleaned);
    expect(changeTask(task(), { title }, at('2026-01-02T00:00:00Z')).title).toBe(cleaned);
  });

  it.each([
    'José Núñez: call back',
    '買牛奶',
    'Zoë’s party 🎉',
    'Family 👨\u200D👩\u200D👧 dinner',
    'می\u200Cخواهم',
    'Call Kat Attwood at 5',
  ])('keeps the title %j as written', (title) => {
    expect(draftTask({ title }).title).toBe(title);
  });

  it('accepts a title of exactly 200 characters after trimming', () => {
    expect(draftTask({ title: ` ${'x'.repeat(200)} ` }).title).toHaveLength(200);
  });

  it('rejects a description over 2000 characters and an unknown priority', () => {
    expect(() => draftTask({ title: 'a', description: 'd'.repeat(2001) })).toThrow(/description/);
    expect(() => draftTask({ title: 'a', priority: 'urgent' as never })).toThrow(/priority/);
  });

  it('stores a blank description as null', () => {
    expect(draftTask({ title: 'a', description: '   ' }).description).toBeNull();
  });
});

describe('changeTask', () => {
  const now = at('2026-02-02T10:00:00Z');

  it('sets completedAt when completing and clears it when reopening', () => {
    const completed = changeTask(task(), { completed: true }, now);
    expect(completed).toMatchObject({ completed: true, completedAt: now, updatedAt: now });
    expect(changeTask(completed, { completed: false }, now)).toMatchObject({ completed: false, completedAt: null });
  });

  it('keeps the first completion time when a completed task is edited', () => {
    const first = at('2026-01-05T00:00:00Z');
    const edited = changeTask(task({ completed: true, completedAt: first }), { title: 'Oat milk' }, now);
    expect(edited).toMatchObject({ title: 'Oat milk', completedAt: first });
  });

  it('validates changed fields like new ones and leaves omitted fields alone', () => {
    expect(() => changeTask(task(), { title: ' ' }, now)).toThrow(InvalidTaskError);
    expect(changeTask(task({ description: 'keep' }), { priority: 'high' }, now)).toMatchObject({
      description: 'keep',
      priority: 'high',
      title: 'Buy milk',
    });
  });
});
