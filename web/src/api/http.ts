/**
 * The client core every call goes through: the session it signs requests with, errors phrased
 * for a person, URLs checked against the generated `…Data` types, and Server-Sent Events.
 */
import type { MeResponseDto } from '../generated/types.gen';
import { createParser, type ParserCallbacks } from 'eventsource-parser';

export type Role = MeResponseDto['role'];

export interface Session {
  readonly token: string;
  readonly userId: string;
  readonly email: string;
  /** From /auth/me at sign-in; the console shows the audit page to admins only (the API enforces it). */
  readonly role: Role;
  /** When the token stops working (epoch ms), from the login answer's expiresIn. */
  readonly expiresAt: number;
  /** When the console got the token (epoch ms); absent from sessions stored before renewal. */
  readonly issuedAt?: number;
}

/**
 * Every member of the union `T`, checked both ways at compile time: a value the server does
 * not have, or one it has that is missing here, is a type error.
 */
export const every =
  <T extends string>() =>
  <const V extends readonly T[]>(values: V & ([T] extends [V[number]] ? unknown : never)): V =>
    values;

/** An error already phrased for a person: the console shows `message`, never a stack. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The API's stable error code (AUTH.UNAUTHENTICATED…), when it sent one. */
    readonly code: string | null = null,
    /** The error body as the API sent it, for a route whose error carries more (a refused policy's `problems`). */
    readonly body: unknown = null,
  ) {
    super(message);
  }
}

function friendly(status: number, body: unknown): string {
  const message = (body as { message?: unknown } | null)?.message;
  const text = Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : '';
  if (status === 401) return text || 'Your session has ended. Please sign in again.';
  if (status === 429) return 'Too many requests. Please wait a moment and try again.';
  if (status >= 500 || !text) return 'Something went wrong on our side. Please try again.';
  return text;
}

export async function send(
  method: string,
  path: string,
  session: Session | null,
  body?: unknown,
  contentType = 'application/json',
  signal?: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = contentType;
  if (session) headers.authorization = `Bearer ${session.token}`;
  const requestBody = body === undefined ? undefined : contentType === 'application/json' ? JSON.stringify(body) : (body as string);
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: requestBody, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, 'Cannot reach Bridle. Check your connection and try again.');
  }
  if (!res.ok) {
    const payload: unknown = await res.json().catch(() => null);
    const code = (payload as { code?: unknown } | null)?.code;
    throw new ApiError(res.status, friendly(res.status, payload), typeof code === 'string' ? code : null, payload);
  }
  return res;
}

export async function json<T>(method: string, path: string, session: Session | null, body?: unknown, contentType?: string): Promise<T> {
  return (await (await send(method, path, session, body, contentType)).json()) as T;
}

/**
 * An operation's URL from its generated `…Data` type: the template must be the operation's
 * own and the parameters its own, so a route the server moves fails the type check.
 */
export function url<D extends { url: string }>(template: D['url'], params: Omit<D, 'url' | 'body'>): string {
  const { path = {}, query = {} } = params as {
    path?: Record<string, string | number>;
    query?: Record<string, string | number | undefined>;
  };
  const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(path[name])));
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(key, String(value));
  return search.toString() ? `${filled}?${search.toString()}` : filled;
}

/** A response body read as Server-Sent Events until it ends. */
export async function readEvents(res: Response, callbacks: ParserCallbacks): Promise<void> {
  if (!res.body) throw new ApiError(0, 'Your browser cannot read the reply stream.');
  const parser = createParser(callbacks);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}
