import { OutreachActionRunner } from '../../../src/application/outreach/outreach-action-runner';
import { MAX_TASK_ATTEMPTS, retryDelayMs } from '../../../src/domain/outreach/outreach-task';
import { CLAIM } from '../../fakes/outreach/cycle-harness';
import { SECRET_NAMES } from '../../fakes/outreach/proposals';
import { REASON, runner, SHOWN } from '../../fakes/outreach/action-runner-harness';

describe(`${OutreachActionRunner.name}, refresh_session`, () => {
  const proposal = (secretName: string) => ({ action: 'refresh_session', args: { secretName }, reason: REASON }) as const;

  it('hands the named secret to LinkedIn, audits before and after without the secret, and makes the task due at once', async () => {
    const { sut, task, journal, linkedin, audit, now } = runner();

    const { outcome, settlement } = await sut.refreshSession(task, proposal(SECRET_NAMES[0]), SHOWN);

    expect(journal).toEqual(['audit:pending', 'secrets:fetch', 'linkedin:useSession', 'audit:succeeded']);
    expect(linkedin.calls).toEqual([{ method: 'useSession', input: { session: 'a-session' } }]);
    expect(JSON.stringify(audit.rows)).not.toContain('a-session');
    expect(outcome).toMatchObject({ status: 'deferred', code: null, execution: { status: 'succeeded' } });
    expect(settlement).toMatchObject({ kind: 'release', release: { status: 'Pending', nextRunAt: now, lastError: null } });
  });

  it('settles an unknown secret name as SECRET_NOT_FOUND: tried again later, failed on the last attempt', async () => {
    const early = runner();
    const last = runner({ claim: { ...CLAIM, attempts: MAX_TASK_ATTEMPTS } });

    const tried = await early.sut.refreshSession(early.task, proposal('nowhere'), SHOWN);
    const given = await last.sut.refreshSession(last.task, proposal('nowhere'), SHOWN);

    expect(early.linkedin.calls).toEqual([]);
    expect(early.audit.rows.map((row) => row.outcome?.errorCode ?? 'pending')).toEqual(['pending', 'SECRET_NOT_FOUND']);
    expect(tried).toMatchObject({
      outcome: { status: 'deferred', code: 'SECRET_NOT_FOUND' },
      settlement: { release: { status: 'Pending', nextRunAt: new Date(early.now.getTime() + retryDelayMs(CLAIM.attempts)) } },
    });
    expect(given).toMatchObject({
      outcome: { status: 'failed', code: 'SECRET_NOT_FOUND' },
      settlement: { release: { status: 'Failed' } },
    });
  });
});
