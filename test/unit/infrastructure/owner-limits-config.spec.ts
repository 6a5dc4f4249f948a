import { loadConfig } from '../../../src/infrastructure/config/app-config';

/** Each owner's limits in one keyed setting, OUTREACH_OWNER_LIMITS, over its older spelling. */
describe('OUTREACH_OWNER_LIMITS', () => {
  it('sets any kind and window, a channel added later included, and wins over the older setting of the same kind and window', () => {
    const outreach = loadConfig({
      OUTREACH_OWNER_LIMITS: 'email:day:40, email:week:150,sms:day:20,sms:week:60',
      OUTREACH_OWNER_DAILY_EMAILS: '90',
      OUTREACH_OWNER_DAILY_LINKEDIN_MESSAGES: '30',
    }).outreach;
    expect(outreach.ownerDailyLimits).toEqual({ profile_lookup: 100, linkedin_message: 30, email: 40, sms: 20 });
    expect(outreach.ownerWeeklyLimits).toEqual({ profile_lookup: 500, linkedin_message: 100, email: 150, sms: 60 });
  });

  it('leaves the older settings as they were when unset', () => {
    const outreach = loadConfig({ OUTREACH_OWNER_WEEKLY_EMAILS: '7' }).outreach;
    expect(outreach.ownerDailyLimits).toEqual({ profile_lookup: 100, linkedin_message: 100, email: 100 });
    expect(outreach.ownerWeeklyLimits).toEqual({ profile_lookup: 500, linkedin_message: 100, email: 7 });
  });

  it('refuses an entry that is not kind:day:max or kind:week:max, or a max beyond its window, naming the setting', () => {
    for (const bad of ['email:month:5', 'email:day', 'sms day 5', 'email:day:-1', 'email:day:100001', 'sms:week:700001']) {
      expect(() => loadConfig({ OUTREACH_OWNER_LIMITS: bad })).toThrow(/OUTREACH_OWNER_LIMITS/);
    }
    expect(loadConfig({ OUTREACH_OWNER_LIMITS: 'sms:week:700000' }).outreach.ownerWeeklyLimits.sms).toBe(700_000);
  });
});
