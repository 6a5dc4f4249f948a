import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { addTasks } from '../factories/tasks';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { connect2026 } from '../support/mcp-2026-client';
import { useTestApp } from '../support/test-app';

/** What a listen stream delivered, in order: the method, and the URI of an update. */
type Heard = string;

describe('subscriptions/listen from a 2026-07-28 client (the official v2 SDK client, pinned)', () => {
  const clients: Client[] = [];
  const sut = useTestApp({
    env: { MCP_LISTEN_STREAMS_PER_USER: '2' },
    beforeClose: () => Promise.all(clients.map((client) => client.close())),
  });
  const alice = sut.user();

  /** A client of the person's whose listen handlers record what they hear. */
  const listener = async (user: SignedInUser) => {
    const client = await connect2026(`${sut.http}/mcp`, user.token);
    clients.push(client);
    const heard: Heard[] = [];
    client.setNotificationHandler('notifications/resources/updated', (note) => void heard.push(`updated ${note.params.uri}`));
    client.setNotificationHandler('notifications/resources/list_changed', () => void heard.push('list_changed'));
    return { client, heard };
  };

  it('acknowledges only what Bridle serves, and hears the person’s change on the list, on a task and as a list change', async () => {
    const [task] = await addTasks(sut.http, alice, 'Listen to me');
    const { client, heard } = await listener(alice);
    const subscription = await client.listen({
      resourcesListChanged: true,
      toolsListChanged: true,
      resourceSubscriptions: ['bridle://tasks', `bridle://tasks/${task.number}`, 'file:///etc/passwd', 'bridle://tasks'],
    });
    expect(subscription.honoredFilter).toEqual({
      resourcesListChanged: true,
      resourceSubscriptions: ['bridle://tasks', `bridle://tasks/${task.number}`],
    });

    await addTasks(sut.http, alice, 'A second one');

    await until(() => heard.length >= 3);
    expect(heard).toEqual(['list_changed', 'updated bridle://tasks', `updated bridle://tasks/${task.number}`]);
    await subscription.close();
    expect(await subscription.closed).toBe('local');
  });

  it('refuses a person’s listen past MCP_LISTEN_STREAMS_PER_USER on this server, counts another person apart, and frees a place when a client leaves', async () => {
    const { client } = await listener(alice);
    const filter = { resourceSubscriptions: ['bridle://tasks'] };
    const first = await client.listen(filter);
    const second = await client.listen(filter);

    await expect(client.listen(filter)).rejects.toThrow(/Subscription limit reached: at most 2/);
    const bob = await signUpAndIn(sut.http);
    const bobs = await (await listener(bob)).client.listen(filter);
    expect(bobs.honoredFilter).toEqual(filter);

    await first.close();
    // The server hears the client's stream close a moment after close() returns.
    const third = await eventually(() => client.listen(filter));
    expect(third.honoredFilter).toEqual(filter);
    await Promise.all([second.close(), third.close(), bobs.close()]);
  });

  it('a stream that listens to nothing Bridle serves is acknowledged empty and ended at once', async () => {
    const { client } = await listener(alice);
    const subscription: McpSubscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['file:///etc/passwd'] });
    expect(subscription.honoredFilter).toEqual({});
    expect(await subscription.closed).toBe('graceful');
  });
});

async function until(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** `attempt` again until it succeeds, for up to 20 s. */
async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
