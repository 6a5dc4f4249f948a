import request from 'supertest';
import { DataSource } from 'typeorm';
import { addTasks } from '../factories/tasks';
import { chatCompletion, FakeProviderServer, type RecordedRequest, toolCall } from '../support/fake-provider-server';
import { useTestApp } from '../support/test-app';

/**
 * A turn that would complete or update more than 3 tasks asks first, and "yes" runs exactly
 * what was asked about. The model is a local server speaking OpenAI's wire format.
 */
describe('bulk changes in the chat', () => {
  let fake: FakeProviderServer;
  beforeAll(async () => {
    fake = await FakeProviderServer.start();
  });
  const sut = useTestApp({ env: () => fake.openAiEnv });
  const user = sut.user();
  beforeAll(() => addTasks(sut.http, user, 'Chore 1', 'Chore 2', 'Chore 3', 'Chore 4', 'Chore 5', 'Chore 6'));
  afterAll(() => fake?.stop());

  /** Asked to act, completes tasks `numbers` in one batch; given tool results, says how many it got. */
  function completes(numbers: number[]) {
    return (req: RecordedRequest) => {
      const messages = req.body.messages as { role: string }[];
      const lastAsked = messages.map((m) => m.role).lastIndexOf('assistant');
      if (messages[messages.length - 1].role === 'tool') {
        return { json: chatCompletion({ content: `Marked ${messages.length - 1 - lastAsked} tasks done.` }) };
      }
      const calls = numbers.map((number) => toolCall(`call_${number}`, 'complete_task', JSON.stringify({ number })));
      return { json: chatCompletion({ tool_calls: calls }, 'tool_calls') };
    };
  }

  async function chat(message: string, conversationId?: string) {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId });
    expect(res.status).toBe(200);
    return res.body as {
      conversationId: string;
      response: string;
      decision: { type: string };
      toolCalls: { success: boolean; error?: { code: string } }[];
    };
  }

  const completed = async () =>
    (
      (await request(sut.http).get(`/api/${user.userId}/tasks?status=completed`).set(user.auth).expect(200)).body as { number: number }[]
    ).map((task) => task.number);
  const completions = () =>
    sut.app
      .get(DataSource)
      .query<{ status: string }[]>(`SELECT status FROM audit_log WHERE tool = 'complete_task' AND status <> 'pending'`);

  it('completes 3 tasks in one turn without asking', async () => {
    fake.respond(completes([1, 2, 3]));
    const reply = await chat('finish 1, 2 and 3');
    expect(reply.response).toBe('Marked 3 tasks done.');
    expect(await completed()).toEqual([1, 2, 3]);
  });

  it('asks before completing 4, changes nothing until "yes", then completes exactly those once', async () => {
    fake.respond(completes([3, 4, 5, 6]));
    const asked = await chat('finish 3 to 6');
    expect(asked.response).toBe(
      "That's a big action: complete task 3, complete task 4, complete task 5 and complete task 6. Confirm with 'yes'.",
    );
    expect(asked.decision.type).toBe('REQUEST_CONFIRMATION');
    expect(asked.toolCalls.map((call) => call.error?.code)).toEqual(Array(4).fill('CONFIRMATION_REQUIRED'));
    expect(await completed()).toEqual([1, 2, 3]);
    expect(await completions()).toHaveLength(3);

    // The model is not asked again: "yes" runs what the question named.
    fake.respond(completes([1]));
    const done = await chat('yes', asked.conversationId);
    expect(done.response).toBe('Marked 4 tasks done.');
    expect(done.decision.type).toBe('INVOKE_TOOL');
    expect(await completed()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await completions()).toHaveLength(7);
    expect((await completions()).every((row) => row.status === 'succeeded')).toBe(true);

    // A second "yes" finds nothing to confirm.
    fake.respond(() => ({ json: chatCompletion({ content: 'There is nothing waiting for a yes.' }) }));
    await chat('yes', asked.conversationId);
    expect(await completions()).toHaveLength(7);
  });

  it('does nothing when the answer is "no"', async () => {
    await request(sut.http).post(`/api/${user.userId}/tasks`).set(user.auth).send({ title: 'Chore 7' }).expect(201);
    fake.respond(completes([7, 8, 9, 10]));
    const asked = await chat('finish 7 to 10');
    expect(asked.decision.type).toBe('REQUEST_CONFIRMATION');
    const cancelled = await chat('no', asked.conversationId);
    expect(cancelled.toolCalls).toEqual([]);
    expect(await completed()).toEqual([1, 2, 3, 4, 5, 6]);
  });
});

describe('bulk changes with the offline model', () => {
  const sut = useTestApp();
  const user = sut.user();
  beforeAll(() => addTasks(sut.http, user, 'Chore 1', 'Chore 2', 'Chore 3', 'Chore 4', 'Chore 5'));

  const chat = async (message: string, conversationId?: string) =>
    (await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200)).body as {
      conversationId: string;
      response: string;
    };

  it('asks about "finish 1 to 5", then completes all five on "yes"', async () => {
    const asked = await chat('finish 1 to 5');
    expect(asked.response).toBe(
      "That's a big action: complete task 1, complete task 2, complete task 3, complete task 4 and complete task 5. Confirm with 'yes'.",
    );
    const done = await chat('yes', asked.conversationId);
    expect(done.response.split('\n')).toHaveLength(5);
    const tasks = (await request(sut.http).get(`/api/${user.userId}/tasks?status=completed`).set(user.auth).expect(200)).body as unknown[];
    expect(tasks).toHaveLength(5);
  });
});
