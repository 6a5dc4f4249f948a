import { draftCampaign, InvalidCampaignError, renameOrRelimit, type Campaign } from '../../../src/domain/outreach/campaign';
import { checkContext, type CycleContext } from '../../../src/domain/outreach/planning';
import type { ActionKind } from '../../../src/domain/outreach/outreach-task';
import {
  addDays,
  describeBlock,
  quotaBlock,
  type QuotaState,
  remainingOf,
  type ScopeUse,
  slotLimits,
  weekFreesAt,
  weekStart,
} from '../../../src/domain/outreach/quota';

/** Wednesday 2026-11-18, 14:20 UTC. */
const NOW = new Date('2026-11-18T14:20:00.000Z');
const TODAY = '2026-11-18';
const midnight = (day: string) => new Date(`${day}T00:00:00.000Z`);

function scope(
  day: { used: number; limit: number },
  week: { limit: number | null; byDay?: Record<string, number> } = { limit: null },
): ScopeUse {
  const byDay = week.byDay ?? (day.used ? { [TODAY]: day.used } : {});
  return { ...day, week: { used: Object.values(byDay).reduce((sum, n) => sum + n, 0), limit: week.limit, byDay } };
}

/** Room everywhere, except what `messages` says for linkedin_message. */
function state(messages: { campaign?: ScopeUse; owner?: ScopeUse } = {}): QuotaState {
  const free = () => ({ campaign: scope({ used: 0, limit: 50 }), owner: scope({ used: 0, limit: 100 }, { limit: 500 }) });
  return {
    profile_lookup: free(),
    email: free(),
    linkedin_message: { ...free(), ...messages },
  };
}

describe('the rolling week', () => {
  it('counts the UTC day and the 6 before it', () => {
    expect(weekStart(TODAY)).toBe('2026-11-12');
    expect(addDays('2026-12-30', 3)).toBe('2027-01-02');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  it('frees its next slot at the midnight the oldest counted day leaves the window, not the next midnight', () => {
    // 3 sent 2 days ago, 4 today: at 7 of 7, the window drops to 4 once Nov 16 leaves it, at the start of Nov 23.
    expect(weekFreesAt({ limit: 7, byDay: { '2026-11-16': 3, [TODAY]: 4 } }, NOW)).toEqual(midnight('2026-11-23'));
    // The oldest counted day is the 6th before today: it leaves at the next midnight.
    expect(weekFreesAt({ limit: 7, byDay: { '2026-11-12': 1, [TODAY]: 6 } }, NOW)).toEqual(midnight('2026-11-19'));
    // All of it today: a full week from now.
    expect(weekFreesAt({ limit: 7, byDay: { [TODAY]: 7 } }, NOW)).toEqual(midnight('2026-11-25'));
  });

  it('waits for as many days to leave as it takes to get under the limit (a lowered limit)', () => {
    // 100 used, limit lowered to 50: Nov 13 (40) leaving is not enough; Nov 15 (20) leaving too brings it to 40.
    const byDay = { '2026-11-13': 40, '2026-11-15': 20, '2026-11-17': 30, [TODAY]: 10 };
    expect(weekFreesAt({ limit: 50, byDay }, NOW)).toEqual(midnight('2026-11-22'));
  });

  it('never has room with a limit of 0: it looks again at the next midnight', () => {
    expect(weekFreesAt({ limit: 0, byDay: {} }, NOW)).toEqual(midnight('2026-11-19'));
  });
});

describe('which limit binds', () => {
  it('is none while every limit has room; remaining is the smallest room of any', () => {
    const quota = state({ owner: scope({ used: 5, limit: 100 }, { limit: 7, byDay: { '2026-11-14': 1, [TODAY]: 5 } }) });
    expect(quotaBlock(quota, 'linkedin_message', NOW)).toBeNull();
    expect(remainingOf(quota, 'linkedin_message')).toBe(1);
    expect(remainingOf(quota, 'profile_lookup')).toBe(50);
  });

  it("is the owner's week when it is full though every day has room", () => {
    const owner = scope({ used: 4, limit: 100 }, { limit: 7, byDay: { '2026-11-16': 3, [TODAY]: 4 } });
    const block = quotaBlock(state({ owner }), 'linkedin_message', NOW);
    expect(block).toEqual({
      kind: 'linkedin_message',
      scope: 'owner',
      window: 'week',
      limit: 7,
      used: 7,
      until: midnight('2026-11-23'),
    });
    expect(describeBlock(block!)).toBe(
      "the owner's weekly LinkedIn message limit (7 in 7 days) is reached; the next slot frees at 2026-11-23T00:00:00.000Z",
    );
    expect(remainingOf(state({ owner }), 'linkedin_message')).toBe(0);
  });

  it("is the campaign's day at the next midnight when only the day is full", () => {
    const block = quotaBlock(state({ campaign: scope({ used: 50, limit: 50 }) }), 'linkedin_message', NOW);
    expect(block).toMatchObject({ scope: 'campaign', window: 'day', limit: 50, until: midnight('2026-11-19') });
    expect(describeBlock(block!)).toBe(
      "the campaign's daily LinkedIn message limit (50 a day) is reached; the next slot frees at 2026-11-19T00:00:00.000Z",
    );
  });

  it('is the one that frees last when several are reached', () => {
    const campaign = scope({ used: 50, limit: 50 }); // frees at the next midnight
    const owner = scope({ used: 50, limit: 100 }, { limit: 100, byDay: { '2026-11-14': 50, [TODAY]: 50 } }); // at Nov 21
    expect(quotaBlock(state({ campaign, owner }), 'linkedin_message', NOW)).toMatchObject({
      scope: 'owner',
      window: 'week',
      until: midnight('2026-11-21'),
    });
    // In one scope, the week that frees later binds before the day.
    const both = scope({ used: 7, limit: 7 }, { limit: 10, byDay: { '2026-11-15': 3, [TODAY]: 7 } });
    expect(quotaBlock(state({ campaign: both }), 'linkedin_message', NOW)).toMatchObject({
      scope: 'campaign',
      window: 'week',
      until: midnight('2026-11-22'),
    });
  });

  it("on a tie, names the campaign's before the owner's and the day before the week", () => {
    const campaign = scope({ used: 50, limit: 50 });
    const owner = scope({ used: 100, limit: 100 });
    expect(quotaBlock(state({ campaign, owner }), 'linkedin_message', NOW)).toMatchObject({ scope: 'campaign', window: 'day' });
    const dayAndWeek = scope({ used: 5, limit: 5 }, { limit: 8, byDay: { '2026-11-12': 3, [TODAY]: 5 } });
    expect(quotaBlock(state({ owner: dayAndWeek }), 'linkedin_message', NOW)).toMatchObject({ scope: 'owner', window: 'day' });
  });

  it('gives a reservation both windows of both scopes', () => {
    const quota = state({ campaign: scope({ used: 0, limit: 20 }, { limit: 60 }) });
    expect(slotLimits(quota, 'linkedin_message')).toEqual({ campaign: { day: 20, week: 60 }, owner: { day: 100, week: 500 } });
  });
});

describe('the context check', () => {
  const context = (quota: QuotaState): CycleContext => ({
    kind: 'task',
    campaign: { id: 'c1', name: 'Q4', status: 'active' },
    task: { id: 't1', type: 'SendLinkedInMessage', status: 'InProgress', attempts: 1, lastError: null },
    lead: { name: 'Jane', linkedinUrl: 'https://www.linkedin.com/in/jane/', email: null, profile: null },
    quota,
    recent: [],
    doNotContact: [],
    secretNames: [],
  });

  it('refuses before the model when a weekly limit is reached, naming it and until when', () => {
    const owner = scope({ used: 4, limit: 100 }, { limit: 7, byDay: { '2026-11-16': 3, [TODAY]: 4 } });
    const check = checkContext(context(state({ owner })), NOW);
    expect(check).toMatchObject({
      ok: false,
      code: 'QUOTA_EXCEEDED',
      kind: 'linkedin_message',
      scope: 'owner',
      block: { window: 'week', until: midnight('2026-11-23') },
      problems: ["the owner's weekly LinkedIn message limit (7 in 7 days) is reached; the next slot frees at 2026-11-23T00:00:00.000Z"],
    });
    expect(checkContext(context(state()), NOW)).toEqual({ ok: true });
  });
});

describe("a campaign's weekly limits", () => {
  const kinds = (limits: Partial<Record<ActionKind, number | null>>) => ({
    profile_lookup: null,
    linkedin_message: null,
    email: null,
    ...limits,
  });

  it('are none unless set, take a whole number up to 70 000 per kind, and null removes one', () => {
    expect(draftCampaign({ name: 'Q4' }).weeklyLimits).toEqual(kinds({}));
    const draft = draftCampaign({ name: 'Q4', weeklyLimits: { linkedin_message: 7, email: 0 } });
    expect(draft.weeklyLimits).toEqual(kinds({ linkedin_message: 7, email: 0 }));
    const campaign = { ...draft, id: 'c1', ownerId: 'u1', status: 'active', createdAt: NOW, updatedAt: NOW, completedAt: null } as Campaign;
    expect(renameOrRelimit(campaign, { weeklyLimits: { linkedin_message: null, profile_lookup: 70_000 } }).weeklyLimits).toEqual(
      kinds({ profile_lookup: 70_000, email: 0 }),
    );
    expect(renameOrRelimit(campaign, {}).weeklyLimits).toEqual(campaign.weeklyLimits);
  });

  it.each([[-1], [70_001], [1.5], ['7']])('refuses %j, naming the field', (value) => {
    const attempt = () => draftCampaign({ name: 'Q4', weeklyLimits: { email: value as number } });
    expect(attempt).toThrow(InvalidCampaignError);
    expect(attempt).toThrow(/weeklyLimits\.email must be a whole number from 0 to 70000, or null for none/);
  });

  it('refuses a kind it does not know', () => {
    expect(() => draftCampaign({ name: 'Q4', weeklyLimits: { invites: 5 } as never })).toThrow(/weeklyLimits accepts only/);
  });
});
