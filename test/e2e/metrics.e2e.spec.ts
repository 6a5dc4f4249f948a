import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { signUpAndIn } from '../support/accounts';
import { leads, runCycle, startedCampaign } from '../support/outreach';
import { useTestApp } from '../support/test-app';
import { lintPrometheus, parsePrometheus, promtoolCheck } from '../support/prometheus';

describe('GET /metrics', () => {
  const sut = useTestApp({ env: { LLM_PRICE_INPUT_PER_1K: '0.5', LLM_PRICE_OUTPUT_PER_1K: '1.5' } });

  async function scrape(): Promise<Map<string, number>> {
    return parsePrometheus(await scrapeText());
  }

  async function scrapeText(): Promise<string> {
    const res = await request(sut.http).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
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
    const model = 'provider="offline",model="bridle-offline-1"';
    expect(moved(`bridle_model_calls_total{${model},outcome="ok"}`)).toBe(3);
    expect(moved(`bridle_model_call_seconds_count{${model}}`)).toBe(3);
    const prompt = moved(`bridle_model_tokens_total{${model},direction="prompt"}`);
    const completion = moved(`bridle_model_tokens_total{${model},direction="completion"}`);
    expect(prompt).toBeGreaterThan(0);
    expect(completion).toBeGreaterThan(0);
    expect(moved(`bridle_model_cost_total{${model}}`)).toBeCloseTo((prompt * 0.5 + completion * 1.5) / 1000, 6);
    expect(moved('bridle_audit_rows_appended_total{source="chat",status="pending"}')).toBe(1);
    expect(moved('bridle_audit_rows_appended_total{source="outreach",status="succeeded"}')).toBe(1);
    // The refused cycle's pending row was rolled back with its reservation: not counted.
    expect(moved('bridle_audit_rows_appended_total{source="outreach",status="pending"}')).toBe(1);
  });

  it("has Node.js's default metrics under their standard names, as dashboards made for them expect", async () => {
    const text = await scrapeText();
    const samples = parsePrometheus(text);
    expect(samples.get('process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(samples.get('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samples.get('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(
      samples.get(
        `nodejs_version_info{version="${process.version}",major="${process.versions.node.split('.')[0]}",minor="${process.versions.node.split('.')[1]}",patch="${process.versions.node.split('.')[2]}"}`,
      ),
    ).toBe(1);
    // Only Bridle's own metrics, and the HTTP histogram of the OpenTelemetry convention, are named otherwise.
    const names = new Set([...text.matchAll(/^# TYPE (\S+)/gm)].map(([, name]) => name));
    expect([...names].filter((name) => !/^(bridle|process|nodejs)_/.test(name))).toEqual(['http_server_request_duration_seconds']);
    expect([...names].filter((name) => /^bridle_(process|nodejs)_/.test(name))).toEqual([]);
  });

  it('times HTTP requests by method, route template and status, never by path', async () => {
    const user = await signUpAndIn(sut.http);
    const missing = `/no-such-page/${randomUUID()}`;
    const someoneElse = randomUUID();
    const key = (method: string, route: string, status: number) =>
      `http_server_request_duration_seconds_count{http_request_method="${method}",http_route="${route}",http_response_status_code="${status}"}`;
    const before = await scrape();

    await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
    await request(sut.http).get(`/api/${someoneElse}/tasks/7`).expect(401);
    await request(sut.http).get(missing).expect(404);
    await request(sut.http).post('/health').expect(404);
    const text = await scrapeText();
    const after = parsePrometheus(text);

    const moved = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
    expect(moved(key('GET', '/api/:userId/tasks', 200))).toBe(1);
    // Refused by a guard: timed all the same, under the route it was refused on.
    expect(moved(key('GET', '/api/:userId/tasks/:number', 401))).toBe(1);
    // No route answered: one constant, whatever the path or the method.
    expect(moved(key('GET', 'unmatched', 404))).toBe(1);
    expect(moved(key('POST', 'unmatched', 404))).toBe(1);
    // /metrics counts itself: the scrape before is in the scrape after (a scrape is counted once it is answered).
    expect(moved(key('GET', '/metrics', 200))).toBe(1);
    for (const id of [user.userId, someoneElse, missing]) expect(text).not.toContain(id);
    const buckets = text
      .split('\n')
      .filter((line) => line.startsWith('http_server_request_duration_seconds_bucket{') && line.includes('http_route="/metrics"'))
      .map((line) => /le="([^"]+)"/.exec(line)?.[1]);
    expect(buckets).toEqual([
      ...['0.005', '0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1', '2.5', '5', '7.5', '10', '30', '60'],
      '+Inf',
    ]);
  });

  it('passes the lint of promtool check metrics: its rules here, and promtool itself where it is installed', async () => {
    const user = await signUpAndIn(sut.http);
    await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message: 'add lint the metrics' }).expect(200);
    const text = await scrapeText();

    expect(lintPrometheus(text)).toEqual([]);
    const promtool = promtoolCheck(text);
    if (promtool) expect(promtool).toEqual({ status: 0, output: '' });
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  const token = 'scrape-token-0123456789';
  const sut = useTestApp({ env: { METRICS_TOKEN: token } });

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
