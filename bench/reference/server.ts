import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool, type AgentInputItem } from '@openai/agents';
import express, { type Request, type Response } from 'express';
import jwt from 'jsonwebtoken';
import { Pool } from 'pg';
import { z } from 'zod';

/**
 * The reference target of the chat-turn benchmark: what someone would build
 * instead of Bridle for the same chat endpoint. A stateless Express app: each request checks
 * an HS256 JWT, reads the conversation's last 20 messages from PostgreSQL, stores the new
 * message, runs an @openai/agents agent (`Runner.run`, Chat Completions at MODEL_BASE_URL)
 * whose `add_task` and `list_tasks` tools work on PostgreSQL for the token's user, and stores
 * the answer. No audit, no confirmations, no rate limits: less than Bridle does, by design.
 *
 * `POST /api/:userId/chat {message, conversationId?}` → `{conversationId, response}`, the
 * same route and body as Bridle's, so one load generator drives both.
 *
 * Environment: DATABASE_URL (required), MODEL_BASE_URL (required, e.g. the benchmark's fake
 * OpenAI server), JWT_SECRET (required; the load generator signs `{sub: userId}` with it),
 * PORT (default 3100; 0 picks a free one), HOST (default 127.0.0.1).
 */

interface Context {
  readonly userId: string;
}

const HISTORY = 20;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const databaseUrl = required('DATABASE_URL');
  const secret = required('JWT_SECRET');
  const modelBaseUrl = required('MODEL_BASE_URL');
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(`
    CREATE TABLE IF NOT EXISTS tasks (
      id bigserial PRIMARY KEY,
      user_id uuid NOT NULL,
      title text NOT NULL,
      completed boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS tasks_by_user ON tasks (user_id, id);
    CREATE TABLE IF NOT EXISTS messages (
      id bigserial PRIMARY KEY,
      conversation_id uuid NOT NULL,
      user_id uuid NOT NULL,
      role text NOT NULL CHECK (role IN ('user', 'assistant')),
      content text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages (conversation_id, id);`);

  const addTask = tool({
    name: 'add_task',
    description: "Add a task to the person's list.",
    parameters: z.object({ title: z.string().min(1).max(200) }),
    execute: async ({ title }, runContext) => {
      const { rows } = await pool.query<{ id: string; title: string }>(
        'INSERT INTO tasks (user_id, title) VALUES ($1, $2) RETURNING id, title',
        [(runContext?.context as Context).userId, title],
      );
      return rows[0];
    },
  });
  const listTasks = tool({
    name: 'list_tasks',
    description: "List the person's tasks: all, pending or completed.",
    parameters: z.object({ status: z.enum(['all', 'pending', 'completed']) }),
    execute: async ({ status }, runContext) => {
      const filter = status === 'all' ? '' : `AND completed = ${status === 'completed'}`;
      const { rows } = await pool.query<{ id: string; title: string; completed: boolean }>(
        `SELECT id, title, completed FROM tasks WHERE user_id = $1 ${filter} ORDER BY id LIMIT 50`,
        [(runContext?.context as Context).userId],
      );
      return rows;
    },
  });
  const agent = new Agent<Context>({
    name: 'Todo assistant',
    instructions: "You manage the person's todo list with your tools. Answer briefly.",
    model: 'gpt-4o',
    tools: [addTask, listTasks],
  });
  setTracingDisabled(true);
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ apiKey: 'sk-reference', baseURL: modelBaseUrl, useResponses: false }),
    tracingDisabled: true,
  });

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '64kb' }));
  app.post('/api/:userId/chat', async (request: Request<{ userId: string }>, response: Response) => {
    let userId: string;
    try {
      const token = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      const claims = jwt.verify(token, secret, { algorithms: ['HS256'] });
      if (typeof claims === 'string' || claims.sub !== request.params.userId) {
        response.status(403).json({ message: 'forbidden' });
        return;
      }
      userId = claims.sub;
    } catch {
      response.status(401).json({ message: 'unauthorized' });
      return;
    }
    const body = request.body as { message?: unknown; conversationId?: unknown };
    if (typeof body.message !== 'string' || body.message.length < 1 || body.message.length > 4000) {
      response.status(400).json({ message: 'message must be 1–4000 characters' });
      return;
    }
    try {
      const conversationId = typeof body.conversationId === 'string' ? body.conversationId : randomUUID();
      const { rows: history } = await pool.query<{ role: 'user' | 'assistant'; content: string }>(
        `SELECT role, content FROM (
           SELECT id, role, content FROM messages WHERE conversation_id = $1 AND user_id = $2 ORDER BY id DESC LIMIT ${HISTORY}
         ) latest ORDER BY id`,
        [conversationId, userId],
      );
      await pool.query(`INSERT INTO messages (conversation_id, user_id, role, content) VALUES ($1, $2, 'user', $3)`, [
        conversationId,
        userId,
        body.message,
      ]);
      // History as plain {role, content} messages: the SDK takes an assistant message's words
      // as a string too (its types want a list of parts, which costs more to copy each turn).
      const input = [...history, { role: 'user', content: body.message }] as AgentInputItem[];
      const result = await runner.run(agent, input, { context: { userId }, maxTurns: 5 });
      const answer = String(result.finalOutput ?? '');
      await pool.query(`INSERT INTO messages (conversation_id, user_id, role, content) VALUES ($1, $2, 'assistant', $3)`, [
        conversationId,
        userId,
        answer,
      ]);
      response.json({ conversationId, response: answer });
    } catch {
      response.status(500).json({ message: 'the turn failed' });
    }
  });

  const host = process.env.HOST ?? '127.0.0.1';
  const server: Server = app.listen(Number(process.env.PORT ?? 3100), host, () => {
    const address = server.address();
    process.stdout.write(`reference listening on http://${host}:${typeof address === 'object' && address ? address.port : '?'}\n`);
  });
  process.once('SIGTERM', () => {
    server.close(() => void pool.end().finally(() => process.exit(0)));
    server.closeAllConnections();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`the reference server failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
