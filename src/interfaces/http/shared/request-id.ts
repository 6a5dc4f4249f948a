import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const ACCEPTABLE_ID = /^[\w.:-]{1,128}$/;

type RequestWithId = IncomingMessage & { id?: string };

/**
 * Gives every request an id, echoing the caller's X-Request-Id when it is sane, and sets
 * the response header. Runs before body parsing so even unparseable requests carry one.
 */
export function assignRequestId(req: RequestWithId, res: ServerResponse, next: () => void): void {
  const offered = req.headers['x-request-id'];
  req.id = typeof offered === 'string' && ACCEPTABLE_ID.test(offered) ? offered : randomUUID();
  res.setHeader(REQUEST_ID_HEADER, req.id);
  next();
}

export function requestIdOf(req: IncomingMessage): string {
  return (req as RequestWithId).id ?? 'unknown';
}
