import request from 'supertest';
import { signUpAndIn } from '../support/accounts';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { parsePrometheus } from '../support/prometheus';

describe('GET /metrics', () => {
  let db: TestDatabase;
  let sut: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await startTestApp(db);
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  async function scrape(): Promise<Map<string, number>> {
    const res = await request(sut.http).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheus(res.text);
  }

  it('parses as Prometheus text, and its counters move with chat turns, tool calls, cycles and quota rejections', async () => {
    const user = await signUpAndIn(sut.http);
    const busyCampaign = await startedCampaign(sut.http, user, 'Metered', leads(1, 'metered', { email: false }));
    const closedCampaign = await startedCampaign(sut.http, user, 'No look-ups today', leads(1, 'closed', { email: false }), {
      profile_lookup: 0,
    });
    const before = await scrape();
    const at = (samples: Map<string, number>, key: string) => samples.get(key) ?? 0;

    await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message: 'add buy milk' }).expect(200);
    expect((await runCycle(sut.http, user, busyCampaign)).status).toBe('completed');
    expect((await runCycle(sut.http, user, closedCampaign)).code).toBe('QUOTA_EXCEEDED');
    const after = await scrape();

    const moved = (key: string) => at(after, key) - at(before, key);
    expect(moved('bridle_chat_turns_total{status="completed"}')).toBe(1);
    expect(moved('bridle_chat_turn_seconds_count')).toBe(1);
    expect(moved('bridle_tool_calls_total{tool="add_task",status="succeeded"}')).toBe(1);
    expect(moved('bridle_tool_calls_total{tool="linkedin_scrape_profile",status="succeeded"}')).toBe(1);
    expect(moved('bridle_tool_call_seconds_count{tool="add_task"}')).toBe(1);
    expect(moved('bridle_outreach_cycles_total{status="completed",code="none"}')).toBe(1);
    expect(moved('bridle_outreach_cycles_total{status="deferred",code="QUOTA_EXCEEDED"}')).toBe(1);
    expect(moved('bridle_quota_rejections_total{kind="profile_lookup",scope="campaign",window="day"}')).toBe(1);
    // The chat turn asked the model twice (tool call, then the answer); the cycle once.
    expect(moved('bridle_model_calls_total{provider="offline",outcome="ok"}')).toBe(3);
    expect(moved('bridle_model_tokens_total{provider="offline",direction="prompt"}')).toBeGreaterThan(0);
    expect(moved('bridle_audit_rows_appended_total{source="chat",status="pending"}')).toBe(1);
    expect(moved('bridle_audit_rows_appended_total{source="outreach",status="succeeded"}')).toBe(1);
    // The refused cycle's pending row was rolled back with its reservation: not counted.
    expect(moved('bridle_audit_rows_appended_total{source="outreach",status="pending"}')).toBe(1);
    expect(at(after, 'bridle_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'scrape-token-0123456789';
  let db: TestDatabase;
  let sut: TestApp;

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await startTestApp(db, { METRICS_TOKEN: token });
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', `Bearer ${token}x`],
    ['the token without its scheme', token],
    ["a user's access token", 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x'],
  ])('answers %s with 401 and no metrics', async (_, authorization) => {
    const req = request(sut.http).get('/metrics');
    const res = authorization === undefined ? await req : await req.set('Authorization', authorization);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ statusCode: 401, code: 'AUTH.UNAUTHENTICATED' });
    expect(res.text).not.toContain('bridle_');
  });

  it('serves the metrics to the bearer of the token', async () => {
    const res = await request(sut.http).get('/metrics').set('Authorization', `Bearer ${token}`).expect(200);
    expect(parsePrometheus(res.text).size).toBeGreaterThan(0);
  });
});
