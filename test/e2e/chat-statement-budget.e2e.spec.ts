import request from 'supertest';
import { BUSY_BACKGROUND, commitsOf, countStatements } from '../support/statement-counter';
import { useTestApp } from '../support/test-app';

describe('SQL statements per chat turn', () => {
  // The background jobs run as often as they may: their statements are no turn's, and none is counted.
  // The background jobs run as often as they may: none of their statements is the turn's.
  const sut = useTestApp({ env: BUSY_BACKGROUND });
  const user = sut.user();
  let conversationId: string;
  beforeAll(async () => {
    conversationId = (await chat('hello')).conversationId;
  });

  async function chat(message: string): Promise<{ conversationId: string; toolCalls: unknown[]; response: string }> {
    const res = await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200);
    return res.body as { conversationId: string; toolCalls: unknown[]; response: string };
  }

  async function statementsOf(message: string): Promise<string[]> {
    const counter = countStatements({ requestsTo: sut.app.getHttpServer() });
    try {
      const reply = await chat(message);
      expect(reply.toolCalls).toHaveLength(1);
    } finally {
      counter.stop();
    }
    return counter.statements;
  }

  // The session's account is read by the turn's opening statement, not by a look-up of the
  // bearer guard's own. A call that changes something runs its write and its audit outcome
  // row in one transaction: BEGIN and COMMIT are two of its round trips, and one commit.
  it.each([
    ['add buy milk', 7, 4],
    ["what's left?", 4, 4],
    ['finish task 1', 9, 5],
    ['add bread', 7, 4],
    ['delete task 2', 4, 4],
    ['yes delete', 8, 5],
  ])('"%s" in an ongoing conversation takes at most %i round trips and %i commits', async (message, budget, commitBudget) => {
    const sent = await statementsOf(message);
    // On a PostgreSQL server a change is announced to the other replicas: at most one NOTIFY,
    // after the commit, on the fleet bus's own connection, shared with whatever else the
    // process publishes in the same 20 ms (docs/decisions/0011-mcp-sessions-in-the-database.md).
    expect(sent.filter((statement) => statement.includes('pg_notify')).length).toBeLessThanOrEqual(1);
    const statements = sent.filter((statement) => !statement.includes('pg_notify'));
    const commits = commitsOf(statements);
    expect({ message, count: statements.length, commits }).toEqual({
      message,
      count: Math.min(statements.length, budget),
      commits: Math.min(commits, commitBudget),
    });
    // First the turn's opening statement, which reads the session's account and counts the
    // hit on the chat limit (shared by every server process) itself.
    expect(statements[0]).toMatch(
      /^WITH a AS \(SELECT credentials_version FROM users WHERE id = \$1\), hit AS \(WITH t AS .*INSERT INTO rate_limits.*INSERT INTO messages/s,
    );
    expect(statements.filter((statement) => /\bFROM users\b/.test(statement))).toHaveLength(1);
    expect(statements.filter((statement) => statement.includes('rate_limits'))).toHaveLength(1);
  });
});
