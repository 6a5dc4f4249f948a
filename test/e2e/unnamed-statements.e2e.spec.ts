import request from 'supertest';
import { signUpAndIn } from '../support/accounts';
import { countStatements } from '../support/statement-counter';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * DATABASE_PREPARED_STATEMENTS, as a pooler in transaction mode needs it: `false` sends every
 * statement of the service unnamed, and the service works as before; `true` (the default)
 * names them, so each connection parses and plans a statement once.
 */
describe.each([
  ['false', 'no statement is named'],
  ['true', 'statements are named'],
])('the service with DATABASE_PREPARED_STATEMENTS=%s', (setting, outcome) => {
  let db: TestDatabase;
  let sut: TestApp;
  let counter: ReturnType<typeof countStatements>;

  beforeAll(async () => {
    db = await createTestDatabase();
    counter = countStatements();
    sut = await startTestApp(db, { DATABASE_PREPARED_STATEMENTS: setting });
  });

  afterAll(async () => {
    counter?.stop();
    await sut?.close();
    await db?.dispose();
  });

  it(`signs up, chats, changes and deletes tasks: ${outcome}`, async () => {
    const user = await signUpAndIn(sut.http);
    const chat = async (message: string, conversationId?: string) =>
      (await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200)).body as {
        conversationId: string;
        response: string;
      };
    const first = await chat('add buy milk');
    await chat('add bake bread', first.conversationId);
    expect((await chat("what's left?", first.conversationId)).response).toMatch(/1\. ☐ Buy milk\s+2\. ☐ Bake bread/);
    await chat('delete task 1', first.conversationId);
    await chat('yes delete', first.conversationId);
    const tasks = await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
    expect((tasks.body as { title: string }[]).map((task) => task.title)).toEqual(['Bake bread']);
    await request(sut.http).get('/health').expect(200, { status: 'ok', database: 'up' });

    expect(counter.statements.length).toBeGreaterThan(20);
    if (setting === 'false') expect(counter.named).toEqual([]);
    else expect(counter.named.length).toBeGreaterThan(10);
  });
});
