import { Client } from 'pg';
import request from 'supertest';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/**
 * Counts what reaches the database: every statement goes through node-postgres'
 * Client#query, on a PostgreSQL server and on PGlite (through its pg adapter) alike.
 */
function countStatements(): { statements: string[]; stop: () => void } {
  const statements: string[] = [];
  const original = Reflect.get(Client.prototype, 'query') as (this: Client, ...args: unknown[]) => unknown;
  Reflect.set(Client.prototype, 'query', function (this: Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    statements.push(typeof config === 'string' ? config : (config.text ?? '?'));
    return original.apply(this, args);
  });
  return { statements, stop: () => Reflect.set(Client.prototype, 'query', original) };
}

describe('SQL statements per chat turn', () => {
  let db: TestDatabase;
  let sut: TestApp;
  let user: SignedInUser;
  let conversationId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    sut = await startTestApp(db);
    user = await signUpAndIn(sut.http);
    conversationId = (await chat('hello')).conversationId;
  });

  afterAll(async () => {
    await sut?.close();
    await db?.dispose();
  });

  async function chat(message: string): Promise<{ conversationId: string; toolCalls: unknown[]; response: string }> {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200);
    return res.body as { conversationId: string; toolCalls: unknown[]; response: string };
  }

  async function statementsOf(message: string): Promise<string[]> {
    const counter = countStatements();
    try {
      const reply = await chat(message);
      expect(reply.toolCalls).toHaveLength(1);
    } finally {
      counter.stop();
    }
    return counter.statements;
  }

  // Each budget includes the bearer guard's look-up of the token's account.
  it.each([
    ['add buy milk', 7],
    ["what's left?", 6],
    ['finish task 1', 8],
    ['add bread', 7],
    ['delete task 2', 6],
    ['yes delete', 8],
  ])('"%s" in an ongoing conversation issues at most %i statements', async (message, budget) => {
    const statements = await statementsOf(message);
    expect({ message, count: statements.length }).toEqual({ message, count: Math.min(statements.length, budget) });
    expect(statements.length).toBeLessThanOrEqual(9);
    // The token's account, then the chat limit's counter (shared by every server process).
    expect(statements[0]).toMatch(/^SELECT .* FROM users WHERE id = \$1$/);
    expect(statements[1]).toMatch(/INSERT INTO rate_limits/);
  });
});
