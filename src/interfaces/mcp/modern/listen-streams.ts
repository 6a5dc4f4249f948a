import type { ServerEventBus } from '@modelcontextprotocol/server';
import type { Response } from 'express';
import type { TaskChanges } from '../../../application/todo/ports/task-changes.port';
import { MAX_SUBSCRIPTIONS } from '../mcp-sessions';
import { isTaskResourceUri } from '../task-resources';

/** A 2026 `subscriptions/listen` request, as the body of a POST. */
interface ListenRequest {
  readonly jsonrpc: '2.0';
  readonly id: string | number;
  readonly method: 'subscriptions/listen';
  readonly params?: { readonly notifications?: unknown; readonly [key: string]: unknown };
}

export function isListenRequest(body: unknown): body is ListenRequest {
  const message = body as Partial<ListenRequest> | null;
  return (
    typeof message === 'object' &&
    message !== null &&
    message.method === 'subscriptions/listen' &&
    (typeof message.id === 'string' || typeof message.id === 'number')
  );
}

/**
 * The listen streams a person holds open on this replica, at most `perPerson` each. A stream
 * counts from its request until its response closes: the client went away, the stream was
 * ended on shutdown, or the SDK refused the request.
 */
export class ListenStreams {
  private readonly open = new Map<string, number>();

  constructor(readonly perPerson: number) {}

  /** @returns what releases the place, or undefined when the person holds `perPerson` already. */
  take(userId: string): (() => void) | undefined {
    const count = this.open.get(userId) ?? 0;
    if (count >= this.perPerson) return undefined;
    this.open.set(userId, count + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.open.get(userId) ?? 1) - 1;
      if (left === 0) this.open.delete(userId);
      else this.open.set(userId, left);
    };
  }
}

/** The refusal of a listen past the limit, before the acknowledgement, as the SDK refuses one past its own: HTTP 200, in band. */
export function refuseListen(res: Response, request: ListenRequest, perPerson: number): void {
  res.status(200).json({
    jsonrpc: '2.0',
    id: request.id,
    error: {
      code: -32603,
      message: `Subscription limit reached: at most ${perPerson} open subscriptions/listen streams per person on this server; close one first`,
    },
  });
}

/**
 * The request with its `resourceSubscriptions` narrowed to the URIs Bridle serves
 * (`bridle://tasks`, `bridle://tasks/{n}`), each once, at most MAX_SUBSCRIPTIONS: the SDK
 * acknowledges what it is given, so the acknowledgement names only what will be heard.
 * Anything malformed is passed on as it came, for the SDK to refuse.
 */
export function servedListen(request: ListenRequest): ListenRequest {
  const notifications = request.params?.notifications as { resourceSubscriptions?: unknown } | undefined;
  const uris = notifications?.resourceSubscriptions;
  if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string')) return request;
  const served = [...new Set(uris.filter(isTaskResourceUri))].slice(0, MAX_SUBSCRIPTIONS);
  return { ...request, params: { ...request.params, notifications: { ...notifications, resourceSubscriptions: served } } };
}

/** The URIs a listen request asked to hear about (after servedListen). */
export function listenedUris(request: ListenRequest): readonly string[] {
  const uris = (request.params?.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : [];
}

/**
 * The events one listen stream hears: a change to the person's tasks, written on any replica
 * (TaskChanges rides the fleet bus), is `resources/list_changed` and `resources/updated` for
 * each URI the stream listens to; the SDK passes on only what the stream opted in to. No one
 * else's changes reach it. TaskChanges does not say which task changed, so a stream listening
 * to `bridle://tasks/3` hears every change to the person's tasks, as a 2025 subscriber does.
 */
export function personalBus(changes: TaskChanges, userId: string, uris: readonly string[]): ServerEventBus {
  return {
    publish: () => undefined,
    subscribe: (listener) =>
      changes.subscribe(userId, () => {
        listener({ kind: 'resources_list_changed' });
        for (const uri of uris) listener({ kind: 'resource_updated', uri });
      }),
  };
}
