import request from 'supertest';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { type ListedTask, playScenario, type PhrasingDriver, scenariosNamed } from '../support/chat-phrasings';
import { useTestApp } from '../support/test-app';
import { addTasks } from '../factories/tasks';

/**
 * A handful of the phrasing table through the real endpoint on a database: an add, a list, a
 * delete confirmed and one cancelled in later turns (the conversation and its pending
 * confirmation stored between requests), clarifications (which task, and each detail a request
 * left out), tasks not found, and a refusal. The whole table runs
 * over the chat core in memory: test/unit/application/chat-phrasings.spec.ts.
 */
const THROUGH_HTTP = [
  'add buy eggs',
  "what's on my list?",
  'delete, then yes delete',
  'delete, then no',
  'two tasks match',
  'add a task',
  'rename task 1 to',
  'update task 1',
  'delete it, with nothing said before',
  'nothing matches',
  'unknown number',
  "what's the weather today?",
];

describe('the todo assistant understands people (offline model, real endpoint)', () => {
  const sut = useTestApp();

  const overHttp: PhrasingDriver<SignedInUser> = {
    async personWith(tasks) {
      const user = await signUpAndIn(sut.http);
      for (const { title, completed } of tasks) {
        const [created] = await addTasks(sut.http, user, title);
        if (completed) {
          await request(sut.http).post(`/api/${user.userId}/tasks/${created.number}/complete`).set(user.auth).expect(200);
        }
      }
      return user;
    },
    async send(user, message, conversationId) {
      const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId });
      expect({ say: message, status: res.status }).toEqual({ say: message, status: 200 });
      return {
        conversationId: res.body.conversationId,
        status: res.body.status,
        response: res.body.response,
        decisionType: res.body.decision.type,
      };
    },
    async tasksOf(user) {
      const res = await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
      return res.body as ListedTask[];
    },
  };

  it.each(scenariosNamed(THROUGH_HTTP))('%s', (_, scenario) => playScenario(overHttp, scenario));
});
