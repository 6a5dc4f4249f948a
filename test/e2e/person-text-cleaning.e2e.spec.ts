import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { answeringToolResult, callTool, say, ScriptedLanguageModel } from '../fakes/scripted-language-model';
import { useTestApp } from '../support/test-app';

/**
 * Text is cleaned the same way wherever it enters (cleanText): a chat message holding an
 * escape sequence, a right-to-left override and a zero-width space is stored and sent to the
 * model without them, and a task's title has no zero-width character whether it came over
 * REST, from the chat's model or from an MCP client.
 */
const ESC = '\u001b';
const RLO = '\u202E';
const ZWSP = '\u200B';
// eslint-disable-next-line no-control-regex -- ESC is one of the characters looked for
const HIDDEN = /[\u001b\u202E\u202C\u200B\u2060\uFEFF]/;

describe('text from a person, a model or a client, cleaned where it enters', () => {
  const model = new ScriptedLanguageModel();
  const clients: Client[] = [];
  const sut = useTestApp({ languageModel: model, beforeClose: () => Promise.all(clients.map((client) => client.close())) });
  const ada = sut.user();

  const titles = async () => {
    const res = await request(sut.http).get(`/api/${ada.userId}/tasks`).set(ada.auth).expect(200);
    return (res.body as { title: string; description: string | null }[]).map((task) => task.title);
  };
  /** Every title and description in the database, whoever stored it. */
  const storedTasks = () =>
    sut.app.get(DataSource).query<{ title: string; description: string | null }[]>('SELECT title, description FROM tasks');

  it('stores a chat message, and sends it to the model, without ESC, U+202E or U+200B', async () => {
    model.use(() => say('Noted.'));
    const message = `Buy${ZWSP} milk ${ESC}[31mtoday${ESC}[0m ${RLO}please`;
    const res = await request(sut.http).post(`/api/${ada.userId}/chat`).set(ada.auth).send({ message }).expect(200);
    const sent = model.requests[0].messages.at(-1)!;
    expect(sent).toEqual({ role: 'user', content: 'Buy milk today please' });
    const history = await request(sut.http)
      .get(`/api/${ada.userId}/conversations/${res.body.conversationId as string}/messages`)
      .set(ada.auth)
      .expect(200);
    expect((history.body as { items: { role: string; content: string }[] }).items[0]).toMatchObject({
      role: 'user',
      content: 'Buy milk today please',
    });
    const stored = await sut.app.get(DataSource).query<{ content: string }[]>(`SELECT content FROM messages WHERE role = 'user'`);
    for (const row of stored) expect(row.content).not.toMatch(HIDDEN);
  });

  it('stores a title from the chat without its zero-width space', async () => {
    model.use((req) =>
      answeringToolResult(req) ? say('Added it.') : callTool('add_task', { title: `Chat${ZWSP}title ${RLO}x`, description: `note${ZWSP}` }),
    );
    const res = await request(sut.http).post(`/api/${ada.userId}/chat`).set(ada.auth).send({ message: 'add chat title' }).expect(200);
    expect(res.body.toolCalls[0]).toMatchObject({ tool: 'add_task', success: true });
    expect(await titles()).toContain('Chattitle x');
  });

  it('stores a title over REST, made and changed, without its zero-width characters', async () => {
    const made = await request(sut.http)
      .post(`/api/${ada.userId}/tasks`)
      .set(ada.auth)
      .send({ title: `Rest${ZWSP} title\u2060`, description: `\uFEFFnote ${ESC}[1mbold` })
      .expect(201);
    expect(made.body).toMatchObject({ title: 'Rest title', description: 'note bold' });
    const changed = await request(sut.http)
      .patch(`/api/${ada.userId}/tasks/${made.body.number as number}`)
      .set(ada.auth)
      .send({ title: `Rest${ZWSP} renamed` })
      .expect(200);
    expect(changed.body).toMatchObject({ title: 'Rest renamed' });
  });

  it('stores a title from an MCP client without its zero-width space', async () => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: { Authorization: `Bearer ${ada.token}` } } }),
    );
    clients.push(client);
    const result = await client.callTool({ name: 'add_task', arguments: { title: `Mcp${ZWSP} title${RLO}` } });
    expect(result.isError).toBeFalsy();
    expect(await titles()).toContain('Mcp title');
  });

  it('leaves no hidden character in any stored title or description', async () => {
    const rows = await storedTasks();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const row of rows) {
      expect(row.title).not.toMatch(HIDDEN);
      expect(row.description ?? '').not.toMatch(HIDDEN);
    }
  });
});
