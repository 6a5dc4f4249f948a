import { OutreachChannels } from '../../../src/application/outreach/outreach-channels';
import { SweepStaleActionsUseCase } from '../../../src/application/outreach/sweep-stale-actions.use-case';
import { FixedClock } from '../../fakes/fixed-clock';
import { RecordingLogger } from '../../fakes/recording-logger';
import { CLAIM, SETTINGS, UNSUBSCRIBE_LINKS } from '../../fakes/outreach/cycle-harness';
import { NoReviewDraftStore } from '../../fakes/outreach/no-review-draft-store';
import { taskContext } from '../../fakes/outreach/proposals';
import { RecordingEmailChannel, RecordingLinkedInChannel, SingleTaskCycleStore } from '../../fakes/outreach/recording-outreach-ports';

const NOW = new Date('2026-11-22T09:00:00.000Z');
const LEASE_MS = SETTINGS.leaseMs;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

describe(SweepStaleActionsUseCase.name, () => {
  let store: SingleTaskCycleStore;
  let logger: RecordingLogger;
  let sut: SweepStaleActionsUseCase;
  const logged = () => logger.lines.map(({ level, context, line }) => ({ level, context, ...line }));

  beforeEach(() => {
    const journal: string[] = [];
    store = new SingleTaskCycleStore(CLAIM, taskContext('ScrapeProfile'), journal);
    logger = new RecordingLogger();
    const channels = new OutreachChannels([new RecordingLinkedInChannel(journal), new RecordingEmailChannel(journal)], UNSUBSCRIBE_LINKS);
    sut = new SweepStaleActionsUseCase(store, new NoReviewDraftStore(), channels, SETTINGS, new FixedClock(NOW), logger);
  });

  it('closes the decision rows opened more than two leases ago, and leaves those a live cycle may still settle', async () => {
    store.abandoned.push(ago(2 * LEASE_MS + 1), ago(2 * LEASE_MS), ago(2 * LEASE_MS - 1), ago(10));

    await expect(sut.run()).resolves.toEqual({
      checked: 0,
      confirmed: 0,
      unknown: 0,
      expiredDrafts: 0,
      escalatedDrafts: 0,
      interruptedDecisions: 1,
    });
    expect(store.closeQueries[0].openedBefore).toEqual(ago(2 * LEASE_MS));
    expect(store.abandoned).toEqual([ago(2 * LEASE_MS), ago(2 * LEASE_MS - 1), ago(10)]);
    expect(logged()).toEqual([
      {
        level: 'warn',
        context: SweepStaleActionsUseCase.name,
        msg: 'closed decisions of cycles cut off before they finished',
        interruptedDecisions: 1,
      },
    ]);
  });

  it('closes more rows than one batch, batch by batch', async () => {
    store.abandoned.push(...Array.from({ length: 120 }, (_, i) => ago(3 * LEASE_MS + i)));

    await expect(sut.run()).resolves.toMatchObject({ interruptedDecisions: 120 });
    expect(store.closeQueries.map((query) => query.limit)).toEqual([50, 50, 50]);
    expect(store.abandoned).toEqual([]);
  });

  it('logs nothing when no cycle was cut off', async () => {
    await expect(sut.run()).resolves.toMatchObject({ interruptedDecisions: 0 });
    expect(store.closeQueries).toHaveLength(1);
    expect(logged()).toEqual([]);
  });
});
