import type { TaskScope } from '../../../src/application/outreach/cycle';
import { OutreachChannels } from '../../../src/application/outreach/outreach-channels';
import type { ChannelAction } from '../../../src/application/outreach/outreach-channels';
import { CLAIM, runnerOn, UNSUBSCRIBE_LINKS } from '../../fakes/outreach/cycle-harness';
import { LEAD, SECRET_NAMES, taskContext } from '../../fakes/outreach/proposals';
import * as ports from '../../fakes/outreach/recording-outreach-ports';
import { FixedClock } from '../../fakes/fixed-clock';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';
import { RecordingLogger } from '../../fakes/recording-logger';
import { RecordingMetrics } from '../../fakes/recording-metrics';

const { MapSecretStore, NO_REVIEW, RecordingEmailChannel, RecordingLinkedInChannel, SingleTaskCycleStore } = ports;
type Journal = ports.Journal;

const EMAIL = {
  action: 'send_email',
  args: { to: LEAD.email, subject: 'Hello', body: 'Hello Jane' },
  reason: 'The next step of this task',
} as const satisfies ChannelAction;

describe(OutreachChannels.name, () => {
  it('routes each action to the one channel of its kind', async () => {
    const journal: Journal = [];
    const sut = new OutreachChannels([new RecordingLinkedInChannel(journal), new RecordingEmailChannel(journal)], UNSUBSCRIBE_LINKS);

    const record = await sut.perform(EMAIL, 'key-1', AbortSignal.timeout(1000), CLAIM);

    expect(record).toEqual({ kind: 'message', messageId: 'mail-key-1' });
    expect(journal).toEqual(['email:send']);
    expect(sut.channelFor('email')?.kinds).toEqual(['email']);
    expect(sut.channelFor('sms')).toBeNull();
  });

  it('refuses to start with two channels for one kind', () => {
    const journal: Journal = [];
    expect(() => new OutreachChannels([new RecordingEmailChannel(journal), new RecordingEmailChannel(journal)], UNSUBSCRIBE_LINKS)).toThrow(
      'Two outreach channels perform email actions: sandbox and sandbox',
    );
  });

  it('refuses an action whose kind no channel performs, and sends it through no other channel', async () => {
    const journal: Journal = [];
    const context = taskContext('SendEmail');
    const store = new SingleTaskCycleStore(CLAIM, context, journal);
    const linkedin = new RecordingLinkedInChannel(journal);
    const email = new RecordingEmailChannel(journal);
    const audit = new RecordingAuditLog(journal);
    const clock = new FixedClock();
    const sut = runnerOn({
      store,
      linkedin,
      email,
      secrets: new MapSecretStore(new Map([[SECRET_NAMES[0], 'a-session']]), journal),
      audit,
      clock,
      metrics: new RecordingMetrics(),
      logger: new RecordingLogger(),
      // The service without its email channel: only LinkedIn's is registered.
      channels: [linkedin],
    });
    const task: TaskScope = {
      decisionId: 'decision-1',
      started: clock.now(),
      campaignId: CLAIM.campaignId,
      ownerId: CLAIM.ownerId,
      taskId: CLAIM.taskId,
      claim: CLAIM,
      context,
    };

    const { outcome, settlement } = await sut.act(task, EMAIL, { proposal: null, validation: null }, { review: NO_REVIEW });

    expect(outcome).toMatchObject({ status: 'failed', code: 'NO_CHANNEL', message: expect.stringContaining('No channel performs email') });
    expect(settlement).toMatchObject({ kind: 'release', release: { status: 'Failed', lastError: 'NO_CHANNEL' } });
    // Nothing reserved, nothing sent: neither the missing channel nor another one.
    expect(store.begun).toEqual([]);
    expect(linkedin.calls).toEqual([]);
    expect(email.calls).toEqual([]);
    expect(audit.rows).toEqual([expect.objectContaining({ status: 'rejected', entry: expect.objectContaining({ tool: 'send_email' }) })]);
    expect(audit.rows[0]).toMatchObject({ outcome: { status: 'rejected', errorCode: 'NO_CHANNEL' } });
  });
});
