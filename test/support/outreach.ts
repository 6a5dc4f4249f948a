import request from 'supertest';
import type { App } from 'supertest/types';
import type { SignedInUser } from './accounts';

export interface LeadInput {
  readonly name: string;
  readonly linkedinUrl: string;
  readonly email?: string;
}

/** `count` leads with distinct profile URLs (`prefix-1` …), with an email unless told not to. */
export function leads(count: number, prefix: string, options: { email?: boolean } = {}): LeadInput[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix} Lead ${i + 1}`,
    linkedinUrl: `https://www.linkedin.com/in/${prefix}-${i + 1}/`,
    ...(options.email === false ? {} : { email: `${prefix}.${i + 1}@example.com` }),
  }));
}

/**
 * Creates a campaign over HTTP, imports the leads as JSON and starts it: `campaign` is its name,
 * or the whole request (a brief, templates …). @returns its id.
 */
export async function startedCampaign(
  http: App,
  user: SignedInUser,
  campaign: string | ({ readonly name: string } & Record<string, unknown>),
  campaignLeads: readonly LeadInput[],
  dailyLimits?: Record<string, number>,
): Promise<string> {
  const base = `/api/${user.userId}/campaigns`;
  const created = await request(http)
    .post(base)
    .set(user.auth)
    .send({ ...(typeof campaign === 'string' ? { name: campaign } : campaign), ...(dailyLimits ? { dailyLimits } : {}) })
    .expect(201);
  const id = (created.body as { id: string }).id;
  for (let i = 0; i < campaignLeads.length; i += 1000) {
    await request(http)
      .post(`${base}/${id}/leads`)
      .set(user.auth)
      .send({ leads: campaignLeads.slice(i, i + 1000) })
      .expect(201);
  }
  await request(http).post(`${base}/${id}/start`).set(user.auth).expect(200);
  return id;
}

export interface CycleBody {
  status: string;
  code: string | null;
  message: string;
  decisionId: string | null;
  task: { id: string; type: string; status: string; attempts: number; nextRunAt: string | null } | null;
  proposal: { action: string; args: Record<string, unknown>; reason: string; by: string } | null;
  validation: { accepted: boolean; attempts: number; problems: string[] } | null;
  execution: { status: string; idempotencyKey: string | null; errorCode: string | null } | null;
  verification: { verified: boolean; detail: string } | null;
}

export async function runCycle(http: App, user: SignedInUser, campaignId: string): Promise<CycleBody> {
  const res = await request(http).post(`/api/${user.userId}/campaigns/${campaignId}/cycles`).set(user.auth).expect(200);
  return res.body as CycleBody;
}

/** Runs the campaign's cycles until one finds nothing to do (or completes the campaign): @returns each cycle's outcome. */
export async function cyclesUntilIdle(http: App, user: SignedInUser, campaignId: string, most = 100): Promise<CycleBody[]> {
  const outcomes: CycleBody[] = [];
  for (let i = 0; i < most; i++) {
    const outcome = await runCycle(http, user, campaignId);
    outcomes.push(outcome);
    if (outcome.status === 'idle' || outcome.status === 'campaign_completed') return outcomes;
  }
  throw new Error(`no end after ${most} cycles: ${JSON.stringify(outcomes.at(-1))}`);
}
