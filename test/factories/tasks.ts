import request from 'supertest';
import type { App } from 'supertest/types';
import type { Task, TaskPriority } from '../../src/domain/todo/task';
import type { SignedInUser } from '../support/accounts';

/** When a built task was created unless told otherwise. */
export const TASK_CREATED_AT = new Date('2026-11-22T09:00:00.000Z');

/**
 * A task as the domain holds it: number 1, "Buy milk", pending, of `user-1`, created (and last
 * changed) at TASK_CREATED_AT. Its id follows its number (`t-1`), and its updatedAt its createdAt.
 */
export function aTask(overrides: Partial<Task> = {}): Task {
  const number = overrides.number ?? 1;
  const createdAt = overrides.createdAt ?? TASK_CREATED_AT;
  return {
    id: `t-${number}`,
    userId: 'user-1',
    number,
    title: 'Buy milk',
    description: null,
    priority: 'medium',
    completed: false,
    createdAt,
    updatedAt: createdAt,
    completedAt: null,
    ...overrides,
  };
}

/** What POST /api/:userId/tasks takes. */
export interface TaskRequest {
  readonly title: string;
  readonly description?: string | null;
  readonly priority?: TaskPriority;
}

/** A task as the API answers it. */
export interface TaskBody {
  readonly id: string;
  readonly number: number;
  readonly title: string;
  readonly description: string | null;
  readonly priority: TaskPriority;
  readonly completed: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly completedAt: string | null;
}

/** Adds the person's tasks over HTTP, one after another so that they are numbered in order: a title, or a whole request. */
export async function addTasks(http: App, user: SignedInUser, ...tasks: readonly (string | TaskRequest)[]): Promise<TaskBody[]> {
  const added: TaskBody[] = [];
  for (const task of tasks) {
    const body = typeof task === 'string' ? { title: task } : task;
    added.push((await request(http).post(`/api/${user.userId}/tasks`).set(user.auth).send(body).expect(201)).body as TaskBody);
  }
  return added;
}

/** The person's task titles over HTTP, in the API's order. */
export async function taskTitles(http: App, user: SignedInUser): Promise<string[]> {
  const listed = await request(http).get(`/api/${user.userId}/tasks`).set(user.auth).expect(200);
  return (listed.body as TaskBody[]).map((task) => task.title);
}
