import type { CallTargets } from './policy';

/**
 * A request to the REST task routes as the policy reads it (source `api`): which route, and
 * for a change, which fields it sets. Built by the route from the request, before anything is
 * read or written.
 */
export type TaskApiRequest =
  | { readonly route: 'create' }
  | {
      readonly route: 'change';
      readonly changes: {
        readonly title?: unknown;
        readonly description?: unknown;
        readonly priority?: unknown;
        readonly completed?: boolean;
      };
    }
  | { readonly route: 'complete' }
  | { readonly route: 'delete' };

/** One tool call a request amounts to. */
export interface ApiCall {
  readonly tool: string;
  readonly targets: CallTargets;
}

const ONE_TASK: CallTargets = { items: 1, recipient: null };

/**
 * The tool calls a request amounts to, by what it does, not by its route: a request must pass
 * every one of them. Each route names one task (by its number), so each call touches one.
 * - POST is add_task, POST …/complete complete_task, DELETE delete_task.
 * - PATCH is complete_task when it completes (`completed: true`), and update_task when it sets
 *   a title, description or priority, or reopens (`completed: false`: no tool completes
 *   backwards, and reopening changes the task as an update does); both when it does both.
 */
export function apiRequestCalls(request: TaskApiRequest): readonly ApiCall[] {
  switch (request.route) {
    case 'create':
      return [{ tool: 'add_task', targets: ONE_TASK }];
    case 'complete':
      return [{ tool: 'complete_task', targets: ONE_TASK }];
    case 'delete':
      return [{ tool: 'delete_task', targets: ONE_TASK }];
    case 'change': {
      const { title, description, priority, completed } = request.changes;
      const updates = [title, description, priority].some((value) => value !== undefined) || completed === false;
      return [
        ...(updates ? [{ tool: 'update_task', targets: ONE_TASK }] : []),
        ...(completed === true ? [{ tool: 'complete_task', targets: ONE_TASK }] : []),
      ];
    }
  }
}
