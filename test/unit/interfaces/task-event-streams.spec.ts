import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TaskEventStreamSettings, TaskEventStreams } from '../../../src/interfaces/http/todo/task-event-streams';
import { RecordingTaskChanges } from '../../fakes/recording-task-changes';
import { openTaskEvents } from '../../support/task-events';

const ALICE = '7d1f6a52-3c55-4a5e-9a6e-0c1d2e3f4a5b';

/** TaskEventStreams behind a bare HTTP server: every request opens Alice's stream. */
async function serve(settings: Partial<TaskEventStreamSettings>) {
  const changes = new RecordingTaskChanges();
  const sut = new TaskEventStreams(changes, { perPerson: 5, keepAliveMs: 60_000, lifetimeMs: 60_000, retryMs: 2_000, ...settings });
  const server: Server = createServer((_req, res) => sut.open(ALICE, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    changes,
    sut,
    open: () => openTaskEvents(origin, '/'),
    close: async () => {
      sut.endAll();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe(TaskEventStreams.name, () => {
  let server: Awaited<ReturnType<typeof serve>> | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends a comment line on a quiet stream, again and again', async () => {
    server = await serve({ keepAliveMs: 20 });
    const stream = await server.open();
    await stream.until('three keep-alive comments', (s) => s.comments.length >= 3);
    expect(new Set(stream.comments)).toEqual(new Set(['keep-alive']));
    expect(stream.events).toEqual([]);
    stream.close();
  });

  it('ends a stream at its lifetime and unsubscribes it, so the client reconnects through the token check', async () => {
    server = await serve({ lifetimeMs: 50 });
    const stream = await server.open();
    // Not "subscribed now" right after opening: on a busy machine the 50 ms may be over by then.
    await stream.until('the end of the stream', (s) => s.ended);
    expect(stream.events).toEqual([]);
    expect(server.changes.subscriptions(ALICE)).toBe(1);
    expect(server.changes.subscribers(ALICE)).toBe(0);
  });

  it('unsubscribes a client that leaves', async () => {
    server = await serve({});
    const stream = await server.open();
    expect(server.changes.subscribers(ALICE)).toBe(1);
    stream.close();
    await until('the subscription to end', () => server!.changes.subscribers(ALICE) === 0);
  });

  it('supersedes the oldest stream beyond the bound, and keeps the subscriptions at the bound', async () => {
    server = await serve({ perPerson: 2 });
    const [first, second, third] = [await server.open(), await server.open(), await server.open()];
    await first.until('the first to be superseded', (s) => s.ended);
    expect(first.events).toEqual([{ event: 'superseded', data: '{"limit":2}', id: undefined }]);
    expect(server.changes.subscribers(ALICE)).toBe(2);

    server.changes.publish(ALICE);
    await second.until('the change on the second', (s) => s.events.length === 1);
    await third.until('the change on the third', (s) => s.events.length === 1);
    expect([second.ended, third.ended]).toEqual([false, false]);
    second.close();
    third.close();
  });

  it('ends every stream with the shutdown event at endAll', async () => {
    server = await serve({});
    const stream = await server.open();
    server.sut.endAll();
    await stream.until('the end of the stream', (s) => s.ended);
    expect(stream.events.map((event) => event.event)).toEqual(['shutdown']);
    expect(stream.retry).toBe(1000);
    expect(server.changes.subscribers(ALICE)).toBe(0);
  });
});
