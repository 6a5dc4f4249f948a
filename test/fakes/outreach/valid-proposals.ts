import fc, { type Arbitrary } from 'fast-check';
import type { TaskCycleContext, WrapUpContext } from '../../../src/application/outreach/ports/outreach-cycle-store.port';
import type { CycleContext } from '../../../src/domain/outreach/planning';
import type { OutreachTaskType } from '../../../src/domain/outreach/outreach-task';
import type { QuotaState } from '../../../src/domain/outreach/quota';
import { between, CONTRACT, type JsonObject, said } from './proposal-contract';

/** A cycle of the outreach planner (a task of each type, or the wrap-up), and proposals the contract accepts in it. */

export const CAMPAIGN = { id: 'c0ffee00-0000-4000-8000-000000000001', name: 'Q4 founders', status: 'active' as const };
export const LEAD = { name: 'Jane Doe', linkedinUrl: 'https://www.linkedin.com/in/jane-doe/', email: 'jane@acme.example' };
export const SECRET_NAMES = ['linkedin-session', 'linkedin_backup'];

const WEEK = { used: 10, limit: null, byDay: {} };
const QUOTA: QuotaState = {
  profile_lookup: { campaign: { used: 10, limit: 50, week: WEEK }, owner: { used: 10, limit: 100, week: { ...WEEK, limit: 500 } } },
  linkedin_message: { campaign: { used: 10, limit: 50, week: WEEK }, owner: { used: 10, limit: 100, week: { ...WEEK, limit: 100 } } },
  email: { campaign: { used: 10, limit: 50, week: WEEK }, owner: { used: 10, limit: 100, week: { ...WEEK, limit: 500 } } },
};

export function taskContext(type: OutreachTaskType, doNotContact: readonly string[] = []): TaskCycleContext {
  return {
    kind: 'task',
    campaign: CAMPAIGN,
    task: { id: 'task-1', type, status: 'InProgress', attempts: 1, lastError: null },
    lead: { ...LEAD, profile: null },
    quota: QUOTA,
    recent: [],
    doNotContact,
    secretNames: SECRET_NAMES,
  };
}

export const WRAP_UP: WrapUpContext = { kind: 'wrap_up', campaign: CAMPAIGN, openTasks: 0, finishedTasks: 9, quota: QUOTA, recent: [] };

const reasons = fc
  .oneof(
    fc.string({ minLength: 10, maxLength: 200 }),
    fc.string({ unit: 'binary', minLength: 10, maxLength: 80 }),
    fc.constantFrom(
      'Task requires profile scraping; quota has room.',
      'r'.repeat(10),
      'r'.repeat(200),
      `  ${'r'.repeat(200)}\n`,
      '\t0123456789 ',
    ),
  )
  .filter((reason) => between(reason.trim().length, 10, 200));

const LEAD_URL_SPELLINGS = [
  LEAD.linkedinUrl,
  'https://linkedin.com/in/jane-doe/',
  'https://www.linkedin.com/in/jane-doe',
  'https://www.linkedin.com/in/Jane-Doe/',
  'https://linkedin.com/in/JANE-DOE',
  `  ${LEAD.linkedinUrl}\n`,
];
const LEAD_EMAIL_SPELLINGS = [LEAD.email, 'JANE@ACME.EXAMPLE', ' Jane@Acme.Example\t'];

function validArgs(action: string, context: CycleContext): Arbitrary<JsonObject> {
  const profileUrl = fc.constantFrom(...LEAD_URL_SPELLINGS);
  switch (action) {
    case 'linkedin_scrape_profile':
      return fc.record({
        profileUrl,
        fields: fc.oneof(
          fc.subarray([...CONTRACT.profileFields], { minLength: 1 }),
          fc.array(fc.constantFrom(...CONTRACT.profileFields), { minLength: 1, maxLength: 6 }),
        ),
      });
    case 'linkedin_send_message':
      return fc.record({
        profileUrl,
        message: fc.oneof(
          fc.string({ minLength: 1, maxLength: 300 }).filter(said),
          fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }).filter((m) => m.length <= 1900 && said(m)),
          fc.constantFrom('x', 'm'.repeat(1900), 'Hi Jane,\nshall we talk about Q4?'),
        ),
      });
    case 'send_email':
      return fc.record({
        to: fc.constantFrom(...LEAD_EMAIL_SPELLINGS),
        subject: fc.oneof(
          fc.string({ minLength: 1, maxLength: 200 }).filter(said),
          fc.constantFrom('s', 's'.repeat(200), 'Quick question, Jane'),
        ),
        body: fc.oneof(
          fc.string({ minLength: 1, maxLength: 500 }).filter(said),
          fc.constantFrom('b', 'b'.repeat(10_000), 'Hi Jane,\r\n\r\nBest, Sam'),
        ),
      });
    case 'wait_cooldown':
      return fc.record(
        {
          durationHours: fc.oneof(fc.double({ min: 0.01, max: 168, noNaN: true }), fc.constantFrom(0.01, 1, 14.66, 168)),
          reason: fc.string({ maxLength: 200 }),
        },
        { requiredKeys: ['durationHours'] },
      );
    case 'refresh_session':
      return fc.record({ secretName: fc.constantFrom(...(context.kind === 'task' ? context.secretNames : SECRET_NAMES)) });
    default:
      return fc.record({ campaignId: fc.constant(context.campaign.id) });
  }
}

/** A proposal the contract accepts in `context` (for a context without do-not-contact entries). */
export function validProposal(context: CycleContext): Arbitrary<JsonObject> {
  const offered =
    context.kind === 'wrap_up'
      ? ['complete_campaign']
      : [CONTRACT.byTaskType[context.task.type as keyof typeof CONTRACT.byTaskType], 'wait_cooldown', 'refresh_session'];
  return fc
    .constantFrom(...offered)
    .chain((action) => fc.tuple(validArgs(action, context), reasons).map(([args, reason]) => ({ action, args, reason })));
}
