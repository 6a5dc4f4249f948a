import { planWindow, type WindowTurn } from '../../../src/domain/chat/context-window';

const turn = (n: number, tokens: number): WindowTurn => ({
  firstSeq: 2 * n - 1,
  lastSeq: 2 * n,
  storedMessages: 2,
  messages: [{ role: 'user', content: `message ${n}` }],
  done: [],
  tokens,
});

describe(planWindow.name, () => {
  it('keeps everything that fits', () => {
    const turns = [turn(1, 100), turn(2, 100)];
    expect(planWindow(turns, 200, 100)).toEqual({ kept: turns, toSummarize: [] });
  });

  it('past the budget keeps the newest turns within half of it and summarises the rest, whole turns only', () => {
    const turns = [turn(1, 300), turn(2, 300), turn(3, 200), turn(4, 250)];
    const plan = planWindow(turns, 1_000, 100);
    expect(plan.kept.map((t) => t.firstSeq)).toEqual([5, 7]);
    expect(plan.toSummarize.map((t) => t.firstSeq)).toEqual([1, 3]);
  });

  it('summarises when the stored messages reach the most read per turn, even when the tokens fit', () => {
    const turns = Array.from({ length: 10 }, (_, i) => turn(i + 1, 1));
    const plan = planWindow(turns, 1_000, 20);
    expect(plan.kept).toHaveLength(5);
    expect(plan.toSummarize).toHaveLength(5);
  });

  it('summarises even the newest turn when it alone is over half of a budget it breaks', () => {
    const plan = planWindow([turn(1, 900)], 800, 100);
    expect(plan).toEqual({ kept: [], toSummarize: [turn(1, 900)] });
  });
});
