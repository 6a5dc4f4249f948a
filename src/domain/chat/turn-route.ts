import type { ConfirmationReply, PendingConfirmation } from '../agent/confirmation';
import { CHAT_TURN } from '../policy/policy';

/** What a chat turn's route is decided from: all of it read when the turn opened. */
export interface TurnRouteInput {
  /** The person's message, as stored. */
  readonly message: string;
  /** The conversation's newest unresolved pending confirmation, expired or not. */
  readonly pending: PendingConfirmation | null;
  /** The pending confirmation the client says this message answers (a client that showed it as data); null when none. */
  readonly named: string | null;
  /** The message read as an answer to a question (interpretConfirmationReply); `other` when there is no question to answer. */
  readonly reading: ConfirmationReply;
  /** Whether `pending` had expired when the turn opened. */
  readonly expired: boolean;
}

/** What every route says besides its kind. */
interface RouteFacts {
  /** The message the turn answers: the one a chat turn's question held when this answers it, else the person's own. */
  readonly said: string;
  /** Asked before any model call (a summary's included): `agreed`, the person already said yes in this turn. Null: no model call. */
  readonly admission: { readonly agreed: boolean } | null;
  /** The open question this turn closes unanswered (the person moved on, or it expired), by id; null when none. */
  readonly dropped: string | null;
  /** The tool of the open question the person said yes to, whether it runs or not (the turn's intent); null when they did not. */
  readonly confirmedTool: string | null;
}

/**
 * Which way a chat turn goes:
 * - `already-handled`: a yes or no to a question that is not the open one (the client named
 *   another): never taken as the answer to another question, nor passed to the model as a bare "yes";
 * - `expired`: a yes or no to the open question after it expired: nobody said no, the time ran out;
 * - `cancel`: a no to the open question;
 * - `confirm`: a yes to the open question: the turn admission is asked (as agreed), then it runs;
 * - `model`: anything else: the turn admission is asked, then the model answers.
 */
export type TurnRoute =
  | (RouteFacts & { readonly kind: 'already-handled' })
  | (RouteFacts & { readonly kind: 'expired' })
  | (RouteFacts & { readonly kind: 'cancel'; readonly pending: PendingConfirmation })
  | (RouteFacts & { readonly kind: 'confirm'; readonly pending: PendingConfirmation })
  | (RouteFacts & { readonly kind: 'model' });

export type TurnRouteKind = TurnRoute['kind'];

/** The route of a turn, from what its opening read. Pure. */
export function routeTurn(input: TurnRouteInput): TurnRoute {
  const { message, pending, named, reading, expired } = input;
  // An expired question is closed by whatever answers it.
  const lapsed = pending !== null && expired ? pending.id : null;
  if (reading === 'other' || pending === null || (named !== null && named !== pending.id)) {
    if (reading !== 'other' && named !== null)
      return { kind: 'already-handled', said: message, admission: null, dropped: lapsed, confirmedTool: null };
    // A message that neither confirms nor cancels moves on: the open question lapses.
    return { kind: 'model', said: message, admission: { agreed: false }, dropped: pending?.id ?? null, confirmedTool: null };
  }
  // A yes or no to a question before the turn (CHAT_TURN) answers the message it held.
  const held = pending.tool === CHAT_TURN && typeof pending.arguments.message === 'string' ? pending.arguments.message : null;
  const said = held ?? message;
  // A yes to the open question wanted what it asks, whether it runs or not.
  const confirmedTool = reading === 'confirm' ? pending.tool : null;
  if (expired) return { kind: 'expired', said, admission: null, dropped: pending.id, confirmedTool };
  if (reading === 'cancel') return { kind: 'cancel', pending, said, admission: null, dropped: null, confirmedTool };
  return { kind: 'confirm', pending, said, admission: { agreed: true }, dropped: null, confirmedTool };
}
