/** The person's tasks, and the stream that says when they change. */
import type {
  CompleteTaskData,
  CompleteTaskResponse,
  CreateTaskData,
  CreateTaskResponse,
  DeleteTaskData,
  ListTasksData,
  ListTasksResponse,
  StreamTaskEventsData,
  TaskResponseDto,
  UpdateTaskData,
  UpdateTaskResponse,
} from '../generated/types.gen';
import { ApiError, json, readEvents, send, type Session, url } from './http';

export type Task = TaskResponseDto;

export async function listTasks(session: Session): Promise<Task[]> {
  return json<ListTasksResponse>(
    'GET',
    url<ListTasksData>('/api/{userId}/tasks', { path: { userId: session.userId }, query: { status: 'all' } }),
    session,
  );
}

const taskPath = (session: Session, taskNumber: number) => ({ userId: session.userId, number: taskNumber });

export async function createTask(session: Session, title: string): Promise<Task> {
  const body: CreateTaskData['body'] = { title };
  return json<CreateTaskResponse>('POST', url<CreateTaskData>('/api/{userId}/tasks', { path: { userId: session.userId } }), session, body);
}

export async function completeTask(session: Session, taskNumber: number): Promise<Task> {
  const path = url<CompleteTaskData>('/api/{userId}/tasks/{number}/complete', { path: taskPath(session, taskNumber) });
  return json<CompleteTaskResponse>('POST', path, session);
}

/** Changes what `changes` names: title, description, priority, or completed (false reopens). */
export async function updateTask(session: Session, taskNumber: number, changes: UpdateTaskData['body']): Promise<Task> {
  const path = url<UpdateTaskData>('/api/{userId}/tasks/{number}', { path: taskPath(session, taskNumber) });
  return json<UpdateTaskResponse>('PATCH', path, session, changes);
}

/** Deletes at once: the console asks the person first (the same rule as the chat). */
export async function deleteTask(session: Session, taskNumber: number): Promise<void> {
  await send('DELETE', url<DeleteTaskData>('/api/{userId}/tasks/{number}', { path: taskPath(session, taskNumber) }), session);
}

/** The events of GET /api/:userId/tasks/events (its description in the API document). */
export type TaskEvent = 'tasks-changed' | 'superseded' | 'shutdown';

/**
 * Holds the person's task event stream open: `onOpen` once the server listens (changes from
 * then on arrive), `onEvent` for each event, `onRetry` with the reconnect delay the server
 * hints. Resolves when the server ends the stream; rejects when it cannot be opened or is
 * cut (an ApiError), or when `signal` aborts.
 */
export async function streamTaskEvents(
  session: Session,
  handlers: { onOpen: () => void; onEvent: (event: TaskEvent) => void; onRetry: (ms: number) => void },
  signal: AbortSignal,
): Promise<void> {
  const path = url<StreamTaskEventsData>('/api/{userId}/tasks/events', { path: { userId: session.userId } });
  const res = await send('GET', path, session, undefined, undefined, signal);
  handlers.onOpen();
  try {
    await readEvents(res, { onEvent: (message) => handlers.onEvent(message.event as TaskEvent), onRetry: handlers.onRetry });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ApiError(0, 'The connection to Bridle was cut.');
  }
}
