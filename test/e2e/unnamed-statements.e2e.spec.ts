import request from 'supertest';
import { chatTurn } from '../factories/conversations';
import { taskTitles } from '../factories/tasks';
import { signUpAndIn } from '../support/accounts';
import { countStatements } from '../support/statement-counter';
import { useTestApp } from '../support/test-app';

/**
 * DATABASE_PREPARED_STATEMENTS, as a pooler in transaction mode needs it: `false` sends every
 * statement of the service unnamed, and the service works as before; `true` (the default)
 * names them, so each connection parses and plans a statement once.
 */
describe.each([
  ['false', 'no statement is named'],
  ['true', 'statements are named'],
])('the service with DATABASE_PREPARED_STATEMENTS=%s', (setting, outcome) => {
  let counter: ReturnType<typeof countStatements>;
  beforeAll(() => {
    counter = countStatements();
  });
  const sut = useTestApp({ env: { DATABASE_PREPARED_STATEMENTS: setting }, beforeClose: () => counter?.stop() });

  it(`signs up, chats, changes and deletes tasks: ${outcome}`, async () => {
    const user = await signUpAndIn(sut.http);
    const chat = (message: string, conversationId?: string) => chatTurn(sut.http, user, message, conversationId);
    const first = await chat('add buy milk');
    await chat('add bake bread', first.conversationId);
    expect((await chat("what's left?", first.conversationId)).response).toMatch(/1\. ☐ Buy milk\s+2\. ☐ Bake bread/);
    await chat('delete task 1', first.conversationId);
    await chat('yes delete', first.conversationId);
    expect(await taskTitles(sut.http, user)).toEqual(['Bake bread']);
    await request(sut.http).get('/health').expect(200, { status: 'ok', database: 'up' });

    expect(counter.statements.length).toBeGreaterThan(20);
    if (setting === 'false') expect(counter.named).toEqual([]);
    else expect(counter.named.length).toBeGreaterThan(10);
  });
});
