import request from 'supertest';
import type { Completion, CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { useTestApp } from '../support/test-app';
import { addTasks } from '../factories/tasks';
import { answeringToolResult, callTool, say, ScriptedLanguageModel } from '../fakes/scripted-language-model';

/**
 * The decision a turn records goes by what the model did, not by a question mark: a
 * greeting, a refusal or "Anything else?" only answers; a question that offers candidates or
 * asks for a missing detail is a clarification; a tool call invokes a tool; a deletion asks
 * for confirmation. Read back from the answer and from the decision log an admin sees.
 * Also: what the model is told (every task tool, and to always read tasks through them), and
 * the support contact an unexpected failure names.
 */

const SUPPORT_CONTACT = 'help@example.com';

interface Turn {
  /** Called first, when set; `answer` then words the result. */
  readonly tool?: { readonly name: string; readonly args: unknown };
  readonly answer: string;
  readonly decision: string;
}

const TURNS: readonly (readonly [string, Turn])[] = [
  ['a greeting', { answer: 'Hi! How can I help you today?', decision: 'RESPOND_ONLY' }],
  [
    'a refusal',
    { answer: 'Sorry, I can only help with your task list. Can I help you with your tasks instead?', decision: 'RESPOND_ONLY' },
  ],
  ['"Anything else?"', { answer: "You're welcome! Anything else?", decision: 'RESPOND_ONLY' }],
  ['a question offering candidates', { answer: 'Which task do you mean: 1. Buy milk or 2. Buy oat milk?', decision: 'ASK_CLARIFICATION' }],
  ['a question for a missing detail', { answer: 'Could you provide more details about the new title?', decision: 'ASK_CLARIFICATION' }],
  [
    'a tool call',
    {
      tool: { name: 'add_task', args: { title: 'Call mum' } },
      answer: "Got it! Added 'Call mum' to your list. Anything else?",
      decision: 'INVOKE_TOOL',
    },
  ],
  ['a deletion', { tool: { name: 'delete_task', args: { number: 1 } }, answer: 'Never asked.', decision: 'REQUEST_CONFIRMATION' }],
];

function script(turn: Turn): (request: CompletionRequest) => Completion {
  return (req) => (turn.tool && !answeringToolResult(req) ? callTool(turn.tool.name, turn.tool.args) : say(turn.answer));
}

describe('the decision a chat turn records (scripted model, real endpoint)', () => {
  const model = new ScriptedLanguageModel();
  const sut = useTestApp({ env: { SUPPORT_CONTACT }, languageModel: model });
  const person = sut.user();
  const admin = sut.user({ admin: true });
  beforeAll(() => addTasks(sut.http, person, 'Buy milk', 'Buy oat milk'));

  async function chat(message: string) {
    const res = await request(sut.http).post(`/api/${person.userId}/chat`).set(person.auth).send({ message });
    expect(res.status).toBe(200);
    return res.body as { response: string; decision: { type: string; id: string }; status: string; success: boolean; error: unknown };
  }

  it.each(TURNS)('%s', async (_, turn) => {
    model.use(script(turn));
    const body = await chat('hello there');
    const logged = await request(sut.http).get(`/admin/decisions/${body.decision.id}`).set(admin.auth).expect(200);
    expect({ answered: body.decision.type, logged: logged.body.decisionType }).toEqual({ answered: turn.decision, logged: turn.decision });
    if (turn.decision === 'REQUEST_CONFIRMATION') {
      expect(body.response).toBe("Do you really want to delete 'Buy milk'? Reply 'yes delete' to confirm.");
    } else {
      expect(body.response).toBe(turn.answer);
    }
  });

  it('tells the model every task tool, one line each, and to always read and change tasks through them', async () => {
    model.use(() => say('Hi!'));
    await chat('hi');
    const { systemPrompt } = model.requests[0];
    for (const tool of ['add_task', 'list_tasks', 'complete_task', 'update_task', 'delete_task']) {
      expect(systemPrompt).toMatch(new RegExp(`^- ${tool}: \\S.*$`, 'm'));
    }
    expect(systemPrompt).toContain(
      '1. Always use the tools to read or change tasks; never answer about tasks from earlier turns of the conversation',
    );
    expect(systemPrompt).not.toContain('Use the tools only when');
  });

  it('names the support contact after an unexpected failure', async () => {
    const sentence = `An unexpected error occurred. Please try again, or contact support at ${SUPPORT_CONTACT} if it keeps happening.`;
    model.use(() => Promise.reject(new Error('boom')));
    expect(await chat('add something')).toMatchObject({
      status: 'error',
      response: sentence,
      success: false,
      error: { message: sentence, category: 'UNKNOWN' },
    });
    // A model that says nothing at all gets the same way out.
    model.use(() => say(''));
    expect(await chat('add something')).toMatchObject({ status: 'completed', response: sentence });
  });
});
