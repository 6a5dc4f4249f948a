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

/**
 * What a REST task request does, as a tool's twin names it (a tool's `restTwin`), in the order
 * its calls are decided:
 * - `create`: POST.
 * - `change`: a PATCH that sets a title, description or priority, or reopens (`completed: false`:
 *   no tool completes backwards, and reopening changes the task as an update does).
 * - `complete`: POST …/complete, or a PATCH that completes (`completed: true`).
 * - `delete`: DELETE.
 */
export const REST_TWINS = ['create', 'change', 'complete', 'delete'] as const;
export type RestTwin = (typeof REST_TWINS)[number];

/** One tool call a request amounts to. */
export interface ApiCall {
  readonly tool: string;
  readonly targets: CallTargets;
}

const ONE_TASK: CallTargets = { items: 1, recipient: null };

/** What `request` does, in REST_TWINS order: a PATCH that changes a field and completes does both. */
export function restTwinsOf(request: TaskApiRequest): RestTwin[] {
  if (request.route !== 'change') return [request.route];
  const { title, description, priority, completed } = request.changes;
  const updates = [title, description, priority].some((value) => value !== undefined) || completed === false;
  return [...(updates ? (['change'] as const) : []), ...(completed === true ? (['complete'] as const) : [])];
}

/**
 * The tool calls a request amounts to, by what it does, not by its route: each tool whose
 * `restTwin` is one of the things it does (restTwinsOf), and the request must pass every one
 * of them. Each route names one task (by its number), so each call touches one.
 */
export function apiRequestCalls(
  request: TaskApiRequest,
  tools: readonly { readonly name: string; readonly restTwin?: RestTwin | null }[],
): readonly ApiCall[] {
  return restTwinsOf(request).flatMap((twin) =>
    tools.filter((tool) => tool.restTwin === twin).map((tool) => ({ tool: tool.name, targets: ONE_TASK })),
  );
}
