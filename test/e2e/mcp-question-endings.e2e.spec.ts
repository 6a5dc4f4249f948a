import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { addTasks, taskTitles } from '../factories/tasks';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';
import { WORDS_OF_A_NO } from '../support/words-of-a-no';

/**
 * How a deletion's question, put to the person in their MCP client (a 2025 session's
 * elicitation), ended is what the client is told: a no is a no; a question closed without an
 * answer (`cancel`) or left unanswered until it expired is said as such, never as a no.
 * Nothing is deleted in any of them.
 */
describe('/mcp: how a question to the person ended', () => {
  const clients: Client[] = [];
  const sut = useTestApp({
    // One second to answer: the unanswered question expires while the test waits for it.
    env: { MCP_CONFIRMATION_TIMEOUT_SECONDS: '1' },
    beforeClose: () => Promise.all(clients.map((client) => client.close().catch(() => undefined))),
  });

  /** A client whose person answers each question with `answer`, or never (`null`). */
  async function connect(who: SignedInUser, answer: ElicitResult | null): Promise<Client> {
    const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) =>
      answer
        ? answer
        : // Never answered: the server gives up after its timeout and cancels the question.
          new Promise<ElicitResult>((_resolve, reject) => extra.signal.addEventListener('abort', () => reject(new Error('cancelled')))),
    );
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', sut.http), { requestInit: { headers: who.auth } }));
    clients.push(client);
    return client;
  }

  const deleteMilk = async (answer: ElicitResult | null) => {
    const person = await signUpAndIn(sut.http);
    await addTasks(sut.http, person, 'Buy milk', 'Dentist');
    const client = await connect(person, answer);
    const result = await client.callTool({ name: 'delete_task', arguments: { query: 'milk' } });
    expect(result.isError).toBeFalsy();
    expect(await taskTitles(sut.http, person)).toEqual(['Buy milk', 'Dentist']);
    return result.structuredContent as { deleted: unknown[]; confirmed: boolean; asked: string; ending: string; message: string };
  };

  it('says an unanswered question expired unanswered, not that anyone said no', async () => {
    const outcome = await deleteMilk(null);
    expect(outcome).toEqual({
      deleted: [],
      confirmed: false,
      asked: "Do you really want to delete 'Buy milk'?",
      ending: 'expired',
      message: 'The question expired unanswered after 1 second, so nothing was deleted.',
    });
    expect(JSON.stringify(outcome)).not.toMatch(WORDS_OF_A_NO);
  });

  it('says a question the person closed without answering was closed, not that they said no', async () => {
    const outcome = await deleteMilk({ action: 'cancel' });
    expect(outcome).toEqual(
      expect.objectContaining({
        ending: 'dismissed',
        message: 'The person closed the question without answering it, so nothing was deleted.',
      }),
    );
    expect(JSON.stringify(outcome)).not.toMatch(WORDS_OF_A_NO);
  });

  it('says a no as a no', async () => {
    expect(await deleteMilk({ action: 'decline' })).toEqual(
      expect.objectContaining({ ending: 'decided-no', message: 'The person said no, so nothing was deleted.' }),
    );
    expect(await deleteMilk({ action: 'accept', content: { confirm: false } })).toEqual(
      expect.objectContaining({ ending: 'decided-no', message: 'The person said no, so nothing was deleted.' }),
    );
  });
});
