import request from 'supertest';
import type { Completion, CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { OfflineLanguageModel } from '../../src/infrastructure/llm/offline/offline-language-model';
import { parseSse, streamChat } from '../support/chat-stream';
import { useTestApp } from '../support/test-app';
import { addTasks } from '../factories/tasks';
import { answeringToolResult, callTool, say, ScriptedLanguageModel } from '../fakes/scripted-language-model';

/**
 * A clarifying question, in the seeds' words. The agent engine's decision mapping: "Asks user
 * a question → ASK_CLARIFICATION", "Declines request → RESPOND_ONLY (with refusal text)", and
 * its AgentDecision carries `clarification_question`; the agent service's response carries the
 * turn's `messages` ({role, content}); the agent interface's "Ambiguous task" reads "I found
 * multiple tasks about '[query]'. Which one: [options]?", whatever the model, and the audit
 * row says what the person saw. Through the real endpoint, a database and the admin's views.
 */

const CANDIDATES = "I found multiple tasks about 'call'. Which one: 2. Call mum or 3. Call the bank?";

interface Asked {
  /** Whether the model looks at the list first. */
  readonly reads: boolean;
  readonly answer: string;
  readonly decision: 'ASK_CLARIFICATION' | 'RESPOND_ONLY' | 'INVOKE_TOOL';
  readonly question: string | null;
}

const ASKED: readonly (readonly [string, Asked])[] = [
  [
    'a choice between the candidates it read, by number and title',
    {
      reads: true,
      answer: 'Are you referring to task 2 (Call mum) or task 3 (Call the bank)?',
      decision: 'ASK_CLARIFICATION',
      question: 'Are you referring to task 2 (Call mum) or task 3 (Call the bank)?',
    },
  ],
  [
    'a choice between the candidates it read, by number',
    {
      reads: true,
      answer: 'Should I mark task 2 or task 3 as done?',
      decision: 'ASK_CLARIFICATION',
      question: 'Should I mark task 2 or task 3 as done?',
    },
  ],
  [
    'a missing argument',
    {
      reads: false,
      answer: 'Sure, I can rename it. I need the new title. What should it be?',
      decision: 'ASK_CLARIFICATION',
      question: 'I need the new title. What should it be?',
    },
  ],
  [
    'a refusal ending in an offer',
    {
      reads: false,
      answer: 'I can only help with your to-do list. Which task would you like to work on?',
      decision: 'RESPOND_ONLY',
      question: null,
    },
  ],
  [
    'a look at the list ending in an offer',
    {
      reads: true,
      answer: 'Here are your tasks:\n1. Buy milk\n2. Call mum\n3. Call the bank\nWould you like to mark one as done?',
      decision: 'INVOKE_TOOL',
      question: null,
    },
  ],
];

function script(asked: Asked): (request: CompletionRequest) => Completion {
  return (req) => (asked.reads && !answeringToolResult(req) ? callTool('list_tasks', { status: 'all' }) : say(asked.answer));
}

describe('a clarifying question, in the seeds’ words (real endpoint, database, admin views)', () => {
  const model = new ScriptedLanguageModel();
  const offline = new OfflineLanguageModel();
  const sut = useTestApp({ languageModel: model });
  const person = sut.user();
  const admin = sut.user({ admin: true });
  beforeAll(() => addTasks(sut.http, person, 'Buy milk', 'Call mum', 'Call the bank'));

  async function chat(message: string) {
    const res = await request(sut.http).post(`/api/${person.userId}/chat`).set(person.auth).send({ message });
    expect(res.status).toBe(200);
    return res.body as {
      response: string;
      decision: { type: string; id: string; clarificationQuestion: string | null };
      messages: unknown;
    };
  }

  const decisionView = async (id: string) => (await request(sut.http).get(`/admin/decisions/${id}`).set(admin.auth).expect(200)).body;

  it.each(ASKED)('%s: the decision by what the model asked, with its question, in the answer and the decision log', async (_, asked) => {
    model.use(script(asked));
    const body = await chat('mark the call one done');
    expect(body.response).toBe(asked.answer);
    expect(body.decision).toMatchObject({ type: asked.decision, clarificationQuestion: asked.question });
    expect(await decisionView(body.decision.id)).toMatchObject({ decisionType: asked.decision, clarificationQuestion: asked.question });
  });

  it("the stream's final event carries the decision's question", async () => {
    model.use(script(ASKED[0][1]));
    const res = await streamChat(sut.http, person, { message: 'mark the call one done' }).expect(200);
    const done = parseSse(res.body as string).at(-1)!;
    expect(done.event).toBe('done');
    expect(done.data.decision).toMatchObject({
      type: 'ASK_CLARIFICATION',
      clarificationQuestion: 'Are you referring to task 2 (Call mum) or task 3 (Call the bank)?',
    });
  });

  it("the answer carries the turn's own messages, as the agent service's contract shapes them", async () => {
    model.use(() => say('Hi! How can I help you today?'));
    const body = await chat('hello there');
    expect(body.messages).toEqual([
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'Hi! How can I help you today?' },
    ]);
  });

  it.each([
    ['echoes the tool error in its own code', "AMBIGUOUS_TASK: More than one task matches 'call'.", CANDIDATES],
    ['asks without the candidates', 'Which one did you mean?', `Which one did you mean?\n\n${CANDIDATES}`],
  ])(
    'an ambiguous reference reaches the person with its candidates when a real model %s, and the audit row says what they saw',
    async (_, words, response) => {
      model.use((req) => (answeringToolResult(req) ? say(words) : callTool('complete_task', { query: 'call' })));
      const body = await chat('mark the call one done');
      expect(body.response).toBe(response);
      expect(body.decision).toMatchObject({
        type: 'ASK_CLARIFICATION',
        clarificationQuestion: 'Which one: 2. Call mum or 3. Call the bank?',
      });
      const view = await decisionView(body.decision.id);
      expect(view.toolCalls.map((row: { errorMessage: string | null }) => row.errorMessage)).toContain(CANDIDATES);
    },
  );

  it('with the offline model the same: the person reads the candidates, and the audit row says so', async () => {
    model.use((req) => offline.complete(req));
    const body = await chat('mark the call one done');
    expect(body.response).toBe(CANDIDATES);
    expect(body.decision).toMatchObject({
      type: 'ASK_CLARIFICATION',
      clarificationQuestion: 'Which one: 2. Call mum or 3. Call the bank?',
    });
    const view = await decisionView(body.decision.id);
    expect(view.toolCalls.map((row: { status: string; errorMessage: string | null }) => [row.status, row.errorMessage])).toContainEqual([
      'rejected',
      CANDIDATES,
    ]);
  });

  it.each([
    ['delete', "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title."],
    [
      'complete',
      "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.",
    ],
    [
      'change the priority',
      'Could you provide more details about which task you mean, and the priority you want: high, medium or low? ' +
        "For example: 'make task 2 high priority'.",
    ],
  ])('"%s" alone is asked about as invalid input: "Could you provide more details about [what\'s missing]?"', async (message, reply) => {
    model.use((req) => offline.complete(req));
    const body = await chat(message);
    expect(body.response).toBe(reply);
    expect(body.decision.type).toBe('ASK_CLARIFICATION');
  });

  it("the admin's decision view shows the person's message its messageId names", async () => {
    model.use(() => say('Hi!'));
    const body = await chat('hello from the audit');
    const view = await decisionView(body.decision.id);
    expect(view.message).toEqual({ id: view.messageId, content: 'hello from the audit', createdAt: expect.any(String) });
    const listed = await request(sut.http).get(`/api/${person.userId}/conversations`).set(person.auth).expect(200);
    const conversationId = (listed.body.items as { id: string; title: string }[]).find((c) => c.title === 'hello from the audit')!.id;
    const messages = await request(sut.http).get(`/api/${person.userId}/conversations/${conversationId}/messages`).set(person.auth);
    expect(messages.body.items[0]).toMatchObject({ id: view.messageId, role: 'user', content: 'hello from the audit' });
  });
});
