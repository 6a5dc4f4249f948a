import fc from 'fast-check';
import { judgeClaim } from '../../../src/domain/outreach/planner-claims';
import { checkContext, type TaskContext } from '../../../src/domain/outreach/planning';
import type { OutreachTaskType } from '../../../src/domain/outreach/outreach-task';
import { describeBlock, nextUtcMidnight, type QuotaState, type ScopeUse } from '../../../src/domain/outreach/quota';
import { taskContext } from '../../fakes/outreach/proposals';

/** Wednesday 2026-11-18, 14:20 UTC. */
const NOW = new Date('2026-11-18T14:20:00.000Z');
const TODAY = '2026-11-18';

function scope(used: number, limit: number, week: { used?: number; limit: number | null } = { limit: null }): ScopeUse {
  const weekUsed = week.used ?? used;
  return { used, limit, week: { used: weekUsed, limit: week.limit, byDay: weekUsed ? { [TODAY]: weekUsed } : {} } };
}

/** Nothing used anywhere, except what `lookups` says for profile look-ups. */
function quota(lookups: { campaign?: ScopeUse; owner?: ScopeUse } = {}): QuotaState {
  const free = () => ({ campaign: scope(0, 50), owner: scope(0, 100, { limit: 500 }) });
  return { profile_lookup: { ...free(), ...lookups }, linkedin_message: free(), email: free() };
}

function context(type: OutreachTaskType, changes: Partial<TaskContext> = {}): TaskContext {
  return { ...taskContext(type), quota: quota(), ...changes };
}

describe(judgeClaim.name, () => {
  describe('QUOTA_EXCEEDED', () => {
    it('is refused while every limit of the task’s kind has room, naming the tightest one', () => {
      expect(judgeClaim('QUOTA_EXCEEDED', context('ScrapeProfile'), NOW)).toEqual({
        holds: false,
        reason:
          "claim refused: QUOTA_EXCEEDED but 0 of 50 used: the campaign's daily profile look-up limit, the tightest of this task's, has 50 left",
      });
      // The owner's week is the tightest here: 495 of 500, where the campaign's day has 40 left.
      const nearlyFullWeek = quota({ campaign: scope(10, 50), owner: scope(10, 100, { used: 495, limit: 500 }) });
      expect(judgeClaim('QUOTA_EXCEEDED', context('ScrapeProfile', { quota: nearlyFullWeek }), NOW)).toEqual({
        holds: false,
        reason:
          "claim refused: QUOTA_EXCEEDED but 495 of 500 used: the owner's weekly profile look-up limit, the tightest of this task's, has 5 left",
      });
    });

    it('is judged on the task’s own kind: another kind’s full quota does not confirm it', () => {
      const emailsFull: QuotaState = { ...quota(), email: { campaign: scope(50, 50), owner: scope(50, 100, { limit: 500 }) } };
      expect(judgeClaim('QUOTA_EXCEEDED', context('ScrapeProfile', { quota: emailsFull }), NOW)).toMatchObject({ holds: false });
      expect(judgeClaim('QUOTA_EXCEEDED', context('SendEmail', { quota: emailsFull }), NOW)).toMatchObject({ holds: true });
    });

    it('holds when a daily limit is reached: the controller’s own finding, parked until the next UTC midnight', () => {
      const verdict = judgeClaim('QUOTA_EXCEEDED', context('ScrapeProfile', { quota: quota({ campaign: scope(50, 50) }) }), NOW);
      const block = { kind: 'profile_lookup', scope: 'campaign', window: 'day', limit: 50, used: 50, until: nextUtcMidnight(NOW) } as const;
      expect(verdict).toEqual({
        holds: true,
        check: { ok: false, code: 'QUOTA_EXCEEDED', kind: 'profile_lookup', scope: 'campaign', block, problems: [describeBlock(block)] },
      });
    });

    it('holds when the owner’s weekly limit is reached', () => {
      const verdict = judgeClaim(
        'QUOTA_EXCEEDED',
        context('ScrapeProfile', { quota: quota({ owner: scope(3, 100, { used: 500, limit: 500 }) }) }),
        NOW,
      );
      expect(verdict).toMatchObject({
        holds: true,
        check: { code: 'QUOTA_EXCEEDED', block: { scope: 'owner', window: 'week', used: 500 } },
      });
    });

    it('holds exactly when the controller’s own check finds the quota exceeded', () => {
      const use = fc
        .record({ used: fc.nat(60), limit: fc.nat(60), weekUsed: fc.nat(600), weekLimit: fc.option(fc.nat(600)) })
        .map(({ used, limit, weekUsed, weekLimit }) => scope(used, limit, { used: Math.max(used, weekUsed), limit: weekLimit }));
      fc.assert(
        fc.property(
          use,
          use,
          fc.constantFrom<OutreachTaskType>('ScrapeProfile', 'SendLinkedInMessage', 'SendEmail'),
          (campaign, owner, type) => {
            const kinds = { campaign, owner };
            const state: QuotaState = { profile_lookup: kinds, linkedin_message: kinds, email: kinds };
            const task = context(type, { quota: state });
            const verdict = judgeClaim('QUOTA_EXCEEDED', task, NOW)!;
            const own = checkContext(task, NOW);
            expect(verdict.holds).toBe(!own.ok && own.code === 'QUOTA_EXCEEDED');
            if (verdict.holds) expect(verdict.check).toEqual(own);
            else expect(verdict.reason).toMatch(/^claim refused: QUOTA_EXCEEDED but \d+ of \d+ used: .* has [1-9]\d* left$/);
          },
        ),
      );
    });
  });

  describe('INVALID_CONTEXT', () => {
    it.each([
      ['ScrapeProfile', 'linkedin_scrape_profile', "the lead's LinkedIn URL is"],
      ['SendLinkedInMessage', 'linkedin_send_message', "the lead's LinkedIn URL is"],
      ['SendEmail', 'send_email', "the lead's LinkedIn URL and email address are"],
    ] as const)('is refused for a %s task whose context is complete', (type, action, recorded) => {
      expect(judgeClaim('INVALID_CONTEXT', context(type), NOW)).toEqual({
        holds: false,
        reason: `claim refused: INVALID_CONTEXT but the context is complete for ${action}: ${recorded} recorded, the task is open and the campaign active`,
      });
    });

    it('is refused when only the profile look-up is missing: a message does not need it', () => {
      expect(
        judgeClaim(
          'INVALID_CONTEXT',
          context('SendLinkedInMessage', { lead: { ...taskContext('ScrapeProfile').lead, profile: null } }),
          NOW,
        ),
      ).toMatchObject({ holds: false });
    });

    it('holds when the lead lacks what the action needs, with the controller’s own problems', () => {
      const lead = { ...taskContext('SendEmail').lead, email: null };
      expect(judgeClaim('INVALID_CONTEXT', context('SendEmail', { lead }), NOW)).toEqual({
        holds: true,
        check: { ok: false, code: 'INVALID_CONTEXT', problems: ['the lead has no email address'] },
      });
      const paused = { ...taskContext('ScrapeProfile').campaign, status: 'paused' as const };
      expect(judgeClaim('INVALID_CONTEXT', context('ScrapeProfile', { campaign: paused }), NOW)).toEqual({
        holds: true,
        check: { ok: false, code: 'INVALID_CONTEXT', problems: ['the campaign is paused, not active'] },
      });
    });

    it('is not confirmed by a full quota or a do-not-contact match: those are other codes', () => {
      const full = context('ScrapeProfile', {
        quota: quota({ campaign: scope(50, 50) }),
        doNotContact: [taskContext('ScrapeProfile').lead.linkedinUrl],
      });
      expect(judgeClaim('INVALID_CONTEXT', full, NOW)).toMatchObject({ holds: false });
    });
  });

  it('leaves NO_VALID_ACTION alone: it claims nothing about the controller’s state', () => {
    expect(judgeClaim('NO_VALID_ACTION', context('ScrapeProfile'), NOW)).toBeNull();
  });
});
