import type { OAuthStore, OAuthSweepKind } from '../../../src/application/identity/oauth/ports/oauth-store.port';
import { SweepOAuthRecordsUseCase } from '../../../src/application/identity/oauth/sweep-oauth-records.use-case';
import { FixedClock } from '../../fakes/fixed-clock';
import { RecordingLogger } from '../../fakes/recording-logger';

const NOW = new Date('2026-11-22T09:00:00.000Z');

/** A store with `waiting` rows of each kind to delete; it records each call. */
function storeWith(waiting: Record<OAuthSweepKind, number>) {
  const calls: { kind: OAuthSweepKind; before: Date; limit: number }[] = [];
  const store = {
    sweep: (kind: OAuthSweepKind, before: Date, limit: number) => {
      calls.push({ kind, before, limit });
      const deleted = Math.min(limit, waiting[kind]);
      waiting[kind] -= deleted;
      return Promise.resolve(deleted);
    },
  };
  return { store: store as unknown as OAuthStore, calls };
}

describe(SweepOAuthRecordsUseCase.name, () => {
  it('deletes tokens, grants, requests, then clients that stopped working a week ago, batch after batch until none is left', async () => {
    const { store, calls } = storeWith({ tokens: 1_200, grants: 3, requests: 500, clients: 0 });
    const logger = new RecordingLogger();
    const report = await new SweepOAuthRecordsUseCase(store, new FixedClock(NOW), logger).run();

    expect(report).toEqual({ tokens: 1_200, grants: 3, requests: 500, clients: 0 });
    expect(calls.map((call) => call.kind)).toEqual(['tokens', 'tokens', 'tokens', 'grants', 'requests', 'requests', 'clients']);
    // A week after they stopped working, as docs/security.md says.
    expect(new Set(calls.map((call) => call.before.toISOString()))).toEqual(new Set(['2026-11-15T09:00:00.000Z']));
    expect(logger.lines).toEqual([
      expect.objectContaining({ level: 'info', line: expect.objectContaining({ tokens: 1_200, grants: 3, requests: 500, clients: 0 }) }),
    ]);
  });

  it('writes no line when there was nothing to delete', async () => {
    const { store } = storeWith({ tokens: 0, grants: 0, requests: 0, clients: 0 });
    const logger = new RecordingLogger();
    await new SweepOAuthRecordsUseCase(store, new FixedClock(NOW), logger).run();
    expect(logger.lines).toEqual([]);
  });
});
