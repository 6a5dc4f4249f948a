/**
 * A question a 2026 MCP client was asked in a multi-round-trip request (its `input_required`
 * result), kept so that its answer counts once: whichever replica the retry reaches takes it
 * with one conditional update. What the question was bound to travels in the signed
 * `requestState`; the row knows whose it is, until when, what "yes" runs, and whether it was
 * answered.
 */
export interface OpenedInputRequest {
  readonly id: string;
  readonly userId: string;
  readonly expiresAt: Date;
  readonly call: AskedCall;
}

/** What "yes" runs (the call's arguments as the server's dry run resolved them) and the question that showed it. */
export interface AskedCall {
  readonly arguments: unknown;
  readonly asked: string;
}

/** What taking an answer found: the question's first answer, or why it was not one. */
export type InputRequestTaking =
  { readonly outcome: 'taken'; readonly call: AskedCall } | { readonly outcome: 'already-answered' | 'expired' | 'unknown' };

export abstract class McpInputRequests {
  /** Stores the question; the person's questions that expired before `now` go with it. */
  abstract open(request: OpenedInputRequest, now: Date): Promise<void>;
  /** Marks the question answered, once: a second take of the same id, by any replica, is `already-answered`. */
  abstract take(id: string, userId: string, now: Date): Promise<InputRequestTaking>;
}
