import request from 'supertest';
import { DataSource } from 'typeorm';
import { signUpAndIn, type SignedInUser } from '../support/accounts';
import { useTestApp } from '../support/test-app';
import { addTasks } from '../factories/tasks';

interface Turn {
  readonly conversationId: string;
  readonly response: string;
  readonly decision: { readonly type: string; readonly id: string };
  readonly toolCalls: readonly { readonly tool: string; readonly success: boolean; readonly error?: { readonly code: string } }[];
  readonly pendingConfirmation: { readonly id: string; readonly tool: string; readonly count: number; readonly items: string[] } | null;
}

/**
 * A confirmed deletion deletes exactly what the person was asked about, all of it or none,
 * on a list of any size (offline model, real endpoint).
 */
describe('a confirmed deletion (offline model)', () => {
  const sut = useTestApp();

  async function userWith(count: number): Promise<SignedInUser> {
    const user = await signUpAndIn(sut.http);
    await addTasks(sut.http, user, ...Array.from({ length: count }, (_, i) => `Task ${i + 1}`));
    return user;
  }

  const chat = async (user: SignedInUser, message: string, conversationId?: string): Promise<Turn> =>
    (await request(sut.http).post(`/api/${user.userId}/chat`).set(user.auth).send({ message, conversationId }).expect(200)).body as Turn;
  const numbers = async (user: SignedInUser) =>
    ((await request(sut.http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200)).body as { number: number }[]).map(
      (task) => task.number,
    );
  const auditOf = (decisionId: string) =>
    sut.app
      .get(DataSource)
      .query<{ status: string; error_code: string | null }[]>(
        `SELECT status, error_code FROM audit_log WHERE decision_id = $1 ORDER BY seq`,
        [decisionId],
      );

  it('deletes nothing when a named task was deleted meanwhile, and asks again about what is left', async () => {
    const user = await userWith(13);
    const asked = await chat(user, 'delete tasks 11, 12 and 13');
    expect(asked.response).toBe("Do you really want to delete 3 tasks: 'Task 11', 'Task 12' and 'Task 13'? Reply 'yes delete' to confirm.");
    await request(sut.http).delete(`/api/${user.userId}/tasks/12`).set(user.auth).expect(204);

    const stale = await chat(user, 'yes delete', asked.conversationId);
    expect(stale.response).toBe(
      "Since I asked, task 12 'Task 12' is gone, so I deleted nothing. " +
        "Do you really want to delete 2 tasks: 'Task 11' and 'Task 13'? Reply 'yes delete' to confirm.",
    );
    expect(stale.decision.type).toBe('REQUEST_CONFIRMATION');
    // Asked again: a new pending confirmation, with what is there now.
    expect(stale.pendingConfirmation).toMatchObject({ tool: 'delete_task', count: 2, items: ['Task 11', 'Task 13'] });
    expect(stale.pendingConfirmation!.id).not.toBe(asked.pendingConfirmation!.id);
    expect(stale.toolCalls).toEqual([
      expect.objectContaining({ tool: 'delete_task', success: false, error: expect.objectContaining({ code: 'CONFIRMATION_STALE' }) }),
    ]);
    expect(await numbers(user)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]);
    expect(await auditOf(stale.decision.id)).toEqual([
      { status: 'pending', error_code: null },
      { status: 'rejected', error_code: 'CONFIRMATION_STALE' },
    ]);

    const confirmed = await chat(user, 'yes delete', asked.conversationId);
    expect(confirmed.response).toBe("I've removed 2 tasks: 'Task 11' and 'Task 13'.");
    expect(confirmed.decision.type).toBe('INVOKE_TOOL');
    expect(await numbers(user)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await auditOf(confirmed.decision.id)).toEqual([
      { status: 'pending', error_code: null },
      { status: 'succeeded', error_code: null },
    ]);
  });

  it('deletes nothing when a named task was renamed meanwhile, and asks again with its new title', async () => {
    const user = await userWith(3);
    const asked = await chat(user, 'delete tasks 1 and 2');
    await request(sut.http).patch(`/api/${user.userId}/tasks/2`).set(user.auth).send({ title: 'Pay the rent' }).expect(200);

    const stale = await chat(user, 'yes', asked.conversationId);
    expect(stale.response).toBe(
      "Since I asked, task 2 'Task 2' was renamed 'Pay the rent', so I deleted nothing. " +
        "Do you really want to delete 2 tasks: 'Task 1' and 'Pay the rent'? Reply 'yes delete' to confirm.",
    );
    expect(await numbers(user)).toEqual([1, 2, 3]);

    const cancelled = await chat(user, 'no', asked.conversationId);
    expect(cancelled.response).toBe("Okay, I've cancelled that. Nothing was changed.");
    expect(await numbers(user)).toEqual([1, 2, 3]);
  });

  it('says nothing was deleted, and asks nothing, when every named task is gone', async () => {
    const user = await userWith(2);
    const asked = await chat(user, 'delete task 2');
    await request(sut.http).delete(`/api/${user.userId}/tasks/2`).set(user.auth).expect(204);

    const stale = await chat(user, 'yes delete', asked.conversationId);
    expect(stale.response).toBe("Since I asked, task 2 'Task 2' is gone, so I deleted nothing.");
    // The confirmed call was made, and found nothing left to delete.
    expect(stale.decision.type).toBe('INVOKE_TOOL');
    expect((await chat(user, 'yes delete', asked.conversationId)).response).toBe(
      "There's nothing waiting for your confirmation right now.",
    );
    expect(await numbers(user)).toEqual([1]);
  });

  it('deletes all of a long list on "delete everything" then "yes delete", asking in one readable sentence', async () => {
    const user = await userWith(130);
    const asked = await chat(user, 'delete everything');
    expect(asked.response).toBe("Do you really want to delete all 130 tasks? Reply 'yes delete' to confirm.");
    // The answer's data names what yes deletes: every task counted, the first ten by title.
    expect(asked.pendingConfirmation).toMatchObject({
      tool: 'delete_task',
      count: 130,
      items: Array.from({ length: 10 }, (_, i) => `Task ${i + 1}`),
    });

    const confirmed = await chat(user, 'yes delete', asked.conversationId);
    expect(confirmed.response).toBe("I've removed 130 tasks: 'Task 1', 'Task 2', 'Task 3' and 127 more.");
    expect(confirmed.toolCalls).toEqual([expect.objectContaining({ tool: 'delete_task', success: true })]);
    expect(await numbers(user)).toEqual([]);
  });
});
