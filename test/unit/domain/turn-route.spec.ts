import type { PendingConfirmation } from '../../../src/domain/agent/confirmation';
import { routeTurn, type TurnRoute, type TurnRouteInput } from '../../../src/domain/chat/turn-route';
import { CHAT_TURN } from '../../../src/domain/policy/policy';

const deletion: PendingConfirmation = {
  id: 'open',
  userId: 'u1',
  conversationId: 'c1',
  tool: 'delete_task',
  arguments: { tasks: [{ number: 3, title: 'Dentist' }] },
  prompt: "Do you really want to delete 'Dentist'?",
  expiresAt: new Date('2030-01-01T00:10:00Z'),
};
/** A question the turn policy asked before a turn: it holds the message to answer on yes. */
const heldTurn: PendingConfirmation = { ...deletion, tool: CHAT_TURN, arguments: { message: 'plan my week', rule: 'spend' } };

function input(fields: Partial<TurnRouteInput>): TurnRouteInput {
  return { message: 'yes', pending: null, named: null, reading: 'other', expired: false, ...fields };
}

type Row = [string, Partial<TurnRouteInput>, TurnRoute];

const rows: Row[] = [
  // No question open: whatever the words, the model answers them.
  ['no question, a request', { message: 'add milk' }, model('add milk', null)],
  ['no question, a bare "yes"', { reading: 'other' }, model('yes', null)],
  // A new request sets the open question aside, expired or not.
  ['an open question, a new request', { message: 'add milk', pending: deletion }, model('add milk', 'open')],
  ['an expired question, a new request', { message: 'add milk', pending: deletion, expired: true }, model('add milk', 'open')],
  ['a new request naming the open question', { message: 'add milk', pending: deletion, named: 'open' }, model('add milk', 'open')],
  // A yes or no to a question that is not the open one does nothing.
  ['a yes naming a question when none is open', { named: 'gone', reading: 'confirm' }, handled(null)],
  ['a no naming another question', { pending: deletion, named: 'gone', reading: 'cancel' }, handled(null)],
  [
    'a yes naming another question, the open one expired',
    { pending: deletion, named: 'gone', reading: 'confirm', expired: true },
    handled('open'),
  ],
  // Answers to the open question.
  ['a yes', { pending: deletion, reading: 'confirm' }, confirm(deletion, 'yes')],
  ['a yes naming the open question', { pending: deletion, named: 'open', reading: 'confirm' }, confirm(deletion, 'yes')],
  ['a no', { message: 'no', pending: deletion, reading: 'cancel' }, cancel(deletion, 'no')],
  ['a yes too late', { pending: deletion, reading: 'confirm', expired: true }, expired('yes', 'delete_task')],
  ['a no too late', { message: 'no', pending: deletion, reading: 'cancel', expired: true }, expired('no', null)],
  // A question before the turn answers the message it held.
  ['a yes to a held turn', { pending: heldTurn, reading: 'confirm' }, confirm(heldTurn, 'plan my week')],
  ['a no to a held turn', { message: 'no', pending: heldTurn, reading: 'cancel' }, cancel(heldTurn, 'plan my week')],
  ['a yes to a held turn too late', { pending: heldTurn, reading: 'confirm', expired: true }, expired('plan my week', CHAT_TURN)],
];

describe(routeTurn.name, () => {
  it.each(rows)('%s', (_, fields, route) => {
    expect(routeTurn(input(fields))).toEqual(route);
  });

  it('takes every route somewhere in the table', () => {
    const kinds = new Set(rows.map(([, fields]) => routeTurn(input(fields)).kind));
    expect([...kinds].sort()).toEqual(['already-handled', 'cancel', 'confirm', 'expired', 'model']);
  });

  it('calls the model only on routes that ask the turn admission first', () => {
    for (const [, fields] of rows) {
      const route = routeTurn(input(fields));
      expect(route.admission !== null).toBe(route.kind === 'model' || route.kind === 'confirm');
    }
  });

  it('reads a held turn only when it holds a message', () => {
    const odd: PendingConfirmation = { ...heldTurn, arguments: { rule: 'spend' } };
    expect(routeTurn(input({ pending: odd, reading: 'confirm' }))).toEqual(confirm(odd, 'yes'));
  });
});

function model(said: string, dropped: string | null): TurnRoute {
  return { kind: 'model', said, admission: { agreed: false }, dropped, confirmedTool: null };
}

function handled(dropped: string | null): TurnRoute {
  return { kind: 'already-handled', said: 'yes', admission: null, dropped, confirmedTool: null };
}

function confirm(pending: PendingConfirmation, said: string): TurnRoute {
  return { kind: 'confirm', pending, said, admission: { agreed: true }, dropped: null, confirmedTool: pending.tool };
}

function cancel(pending: PendingConfirmation, said: string): TurnRoute {
  return { kind: 'cancel', pending, said, admission: null, dropped: null, confirmedTool: null };
}

function expired(said: string, confirmedTool: string | null): TurnRoute {
  return { kind: 'expired', said, admission: null, dropped: 'open', confirmedTool };
}
