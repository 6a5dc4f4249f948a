import request from 'supertest';
import { DataSource } from 'typeorm';
import {
  LanguageModelBadRequestError,
  LanguageModelContentFilterError,
  LanguageModelRateLimitError,
  LanguageModelTimeoutError,
  LanguageModelUnavailableError,
} from '../../src/domain/agent/language-model-errors';
import type { SignedInUser } from '../support/accounts';
import { metricSample } from '../support/prometheus';
import { useTestApp } from '../support/test-app';
import { addTasks } from '../factories/tasks';
import { answeringToolResult, callTool, say, ScriptedLanguageModel } from '../fakes/scripted-language-model';

/**
 * The model is an untrusted user: a scripted model plays a hostile or broken one against
 * the real chat endpoint, MCP tools and database.
 */
describe('chat with a hostile or failing model', () => {
  const model = new ScriptedLanguageModel();
  const sut = useTestApp({ env: { AGENT_TURN_TIMEOUT_MS: '1500' }, languageModel: model });
  const alice = sut.user();
  const bob = sut.user();
  beforeAll(() => addTasks(sut.http, bob, "Bob's secret"));

  const chat = async (user: SignedInUser, message: string, conversationId?: string) => {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId });
    expect(res.status).toBe(200);
    return res.body as {
      conversationId: string;
      response: string;
      status: string;
      finishReason: string;
      warning: string | null;
      iterations: number;
      decision: { type: string; id: string };
      toolCalls: { tool: string; success: boolean; error?: { code: string } }[];
    };
  };

  const titles = async (user: SignedInUser) =>
    ((await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200)).body as { title: string }[]).map(
      (task) => task.title,
    );

  const auditRows = (decisionId: string) =>
    sut.app
      .get(DataSource)
      .query<{ tool: string; status: string; error_code: string | null; security_events: unknown[]; actor_id: string }[]>(
        'SELECT tool, status, error_code, security_events, actor_id FROM audit_log WHERE decision_id = $1 ORDER BY seq',
        [decisionId],
      );

  /** Every turn leaves exactly the person's message and the answer they got. */
  async function expectConsistentHistory(user: SignedInUser, reply: { conversationId: string; response: string }, message: string) {
    const res = await request(sut.http)
      .get(`/api/${user.userId}/conversations/${reply.conversationId}/messages`)
      .set(user.auth)
      .expect(200);
    const items = (res.body as { items: { role: string; content: string }[] }).items;
    expect(items.slice(-2).map((m) => [m.role, m.content])).toEqual([
      ['user', message],
      ['assistant', reply.response],
    ]);
    expect(items.length % 2).toBe(0);
  }

  it("ignores another user's id in tool arguments and records the attempt", async () => {
    model.use((req) =>
      answeringToolResult(req) ? say('Done.') : callTool('add_task', { title: 'Planted', user_id: bob.userId, ownerId: bob.userId }),
    );
    const reply = await chat(alice, 'add planted');
    expect(reply.status).toBe('completed');
    expect(await titles(alice)).toContain('Planted');
    expect(await titles(bob)).toEqual(["Bob's secret"]);
    const rows = await auditRows(reply.decision.id);
    expect(rows.map((r) => [r.tool, r.status, r.actor_id])).toEqual([
      ['add_task', 'pending', alice.userId],
      ['add_task', 'succeeded', alice.userId],
    ]);
    expect(rows[0].security_events).toEqual([
      { type: 'IDENTITY_ARGUMENT_DISCARDED', field: 'user_id' },
      { type: 'IDENTITY_ARGUMENT_DISCARDED', field: 'ownerId' },
    ]);
    await expectConsistentHistory(alice, reply, 'add planted');
  });

  it("cannot reach another user's task by number, even with their id", async () => {
    model.use((req, call) =>
      call === 1
        ? callTool('complete_task', { number: 1, userId: bob.userId })
        : callTool('delete_task', { number: 1, user_id: bob.userId }),
    );
    await chat(alice, 'finish task 1');
    const bobsTasks = await request(sut.http).get(`/api/${bob.userId}/tasks`).set(bob.auth).expect(200);
    expect(bobsTasks.body).toEqual([expect.objectContaining({ number: 1, title: "Bob's secret", completed: false })]);
  });

  it('answers an unknown tool with a tool error the model reads, then carries on, audited and counted like any call', async () => {
    const rejected = 'bridle_tool_calls_total{tool="unknown",status="rejected"}';
    const before = await metricSample(sut.http, rejected);
    model.use((req) => {
      const last = req.messages[req.messages.length - 1];
      if (last.role === 'tool') return say(`The tool said: ${last.content}`);
      return callTool('drop_database', { really: true });
    });
    const reply = await chat(alice, 'do something odd');
    expect(reply.status).toBe('completed');
    // The model read the tool's error; its words quoting that error's JSON are not for the person (reply-check.ts).
    expect(model.requests.at(-1)!.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: expect.stringContaining('There is no tool named \\"drop_database\\"'),
    });
    expect(reply.response).toBe("I couldn't do that. Please try rephrasing your request.");
    expect(reply.toolCalls).toEqual([
      expect.objectContaining({ tool: 'drop_database', success: false, error: expect.objectContaining({ code: 'UNKNOWN_TOOL' }) }),
    ]);
    expect((await auditRows(reply.decision.id)).map((r) => [r.tool, r.status, r.error_code])).toEqual([
      ['drop_database', 'rejected', 'UNKNOWN_TOOL'],
    ]);
    expect((await metricSample(sut.http, rejected)) - before).toBe(1);
    await expectConsistentHistory(alice, reply, 'do something odd');
  });

  it('returns malformed argument JSON to the model, which may correct itself; both calls are audited and counted', async () => {
    const counted = (status: string) => metricSample(sut.http, `bridle_tool_calls_total{tool="add_task",status="${status}"}`);
    const [rejectedBefore, succeededBefore] = [await counted('rejected'), await counted('succeeded')];
    model.use((req, call) => {
      if (call === 1) return callTool('add_task', '{"title": "Fix the', 'bad');
      if (call === 2) return callTool('add_task', { title: 'Fix the bike' }, 'good');
      return say('Added it after all.');
    });
    const reply = await chat(alice, 'add fix the bike');
    expect(reply.iterations).toBe(3);
    expect(reply.toolCalls.map((c) => [c.success, c.error?.code])).toEqual([
      [false, 'MALFORMED_ARGUMENTS'],
      [true, undefined],
    ]);
    expect(await titles(alice)).toContain('Fix the bike');
    expect(model.requests[1].messages.at(-1)).toMatchObject({ role: 'tool', isError: true });
    expect((await auditRows(reply.decision.id)).map((r) => [r.tool, r.status, r.error_code])).toEqual([
      ['add_task', 'rejected', 'MALFORMED_ARGUMENTS'],
      ['add_task', 'pending', null],
      ['add_task', 'succeeded', null],
    ]);
    expect([(await counted('rejected')) - rejectedBefore, (await counted('succeeded')) - succeededBefore]).toEqual([1, 1]);
  });

  it('stops a tool-call loop at the iteration limit and words an answer from what was gathered, with a warning', async () => {
    await chat(alice, 'add water the plants');
    model.use((req) =>
      req.tools.length === 0
        ? say(`So far I found ${req.messages.filter((m) => m.role === 'tool').length} lists; your first task is 'Water the plants'.`)
        : callTool('list_tasks', { status: 'all' }),
    );
    const reply = await chat(alice, 'loop forever');
    expect(reply).toMatchObject({
      status: 'max_iterations_reached',
      finishReason: 'max_iterations',
      warning: 'I reached the limit of steps for one request, so this answer may be incomplete.',
      iterations: 6,
      decision: { type: 'INVOKE_TOOL' },
    });
    expect(reply.response).toContain("'Water the plants'");
    expect(reply.toolCalls.filter((c) => c.success)).toHaveLength(5);
    // Five calls that could use tools, then one that could not, told why.
    expect(model.requests).toHaveLength(6);
    expect(model.requests.slice(0, 5).every((r) => r.tools.length > 0)).toBe(true);
    expect(model.requests[5]).toMatchObject({ tools: [], options: { toolChoice: 'none' } });
    expect(model.requests[5].systemPrompt).toContain('You have used every step allowed for this request');
    await expectConsistentHistory(alice, reply, 'loop forever');
  });

  it('says the limit sentence when the model answers the limit call with nothing usable', async () => {
    model.use(() => callTool('list_tasks', { status: 'all' }));
    const reply = await chat(alice, 'loop forever again');
    expect(reply).toMatchObject({
      status: 'max_iterations_reached',
      finishReason: 'max_iterations',
      response: 'That request is too complex. Could you break it into smaller steps?',
    });
    expect(model.requests).toHaveLength(6);
  });

  it('refuses tool calls past the per-turn limit, then words the answer without tools', async () => {
    model.use((req) =>
      req.tools.length === 0
        ? say('Listed a lot.')
        : {
            text: null,
            toolCalls: Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: 'list_tasks', arguments: '{}' })),
            usage: { promptTokens: 1, completionTokens: 1 },
            finishReason: 'tool_calls',
          },
    );
    const reply = await chat(alice, 'list a dozen times');
    expect(reply.toolCalls.filter((c) => c.success)).toHaveLength(10);
    expect(reply.toolCalls.slice(10).map((c) => c.error?.code)).toEqual(['LIMIT_REACHED', 'LIMIT_REACHED']);
    expect(reply).toMatchObject({
      status: 'max_iterations_reached',
      finishReason: 'max_tool_calls',
      response: 'Listed a lot.',
      iterations: 2,
    });
    expect(reply.warning).toEqual(expect.any(String));
  });

  it.each([
    ['rate limited', new LanguageModelRateLimitError('429'), "I'm currently experiencing high demand. Please try again in a moment."],
    ['timed out', new LanguageModelTimeoutError('slow'), 'That request took too long. Please try a simpler query.'],
    ['unavailable', new LanguageModelUnavailableError('503'), "I'm having trouble connecting to my AI service. Please try again."],
    [
      'a bad request',
      new LanguageModelBadRequestError('400'),
      'An unexpected error occurred. Please try again, or contact support if it keeps happening.',
    ],
    ['content filtered', new LanguageModelContentFilterError('filtered'), "I can't help with that request. Could you rephrase it?"],
    ['an unknown error', new Error('boom'), 'An unexpected error occurred. Please try again, or contact support if it keeps happening.'],
  ])('turns a model that is %s into its friendly sentence', async (_, error, sentence) => {
    const before = await titles(alice);
    model.use(() => Promise.reject(error));
    const reply = await chat(alice, 'add something');
    expect(reply).toMatchObject({ status: 'error', response: sentence, toolCalls: [] });
    expect(await titles(alice)).toEqual(before);
    await expectConsistentHistory(alice, reply, 'add something');
    const [decision] = await sut.app
      .get(DataSource)
      .query<{ status: string; failure_class: string }[]>('SELECT status, failure_class FROM decision_logs WHERE id = $1', [
        reply.decision.id,
      ]);
    expect(decision.status).toBe('error');
  });

  it('gives up on a model that hangs past the turn deadline', async () => {
    model.use(
      (req) => new Promise((_, reject) => req.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    );
    const reply = await chat(alice, 'take your time');
    expect(reply).toMatchObject({ status: 'error', response: 'That request took too long. Please try a simpler query.' });
  });
});
