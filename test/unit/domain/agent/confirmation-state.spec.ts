import {
  BULK_CHANGE,
  type ConfirmationRecord,
  confirmationState,
  confirmationStateSentence,
  EXPIRED_CONFIRMATION_REPLY,
} from '../../../../src/domain/agent/confirmation';
import { WORDS_OF_A_NO } from '../../../support/words-of-a-no';

const createdAt = new Date('2026-01-01T10:00:00Z');
const expiresAt = new Date('2026-01-01T10:10:00Z');
const before = new Date('2026-01-01T10:05:00Z');
const after = new Date('2026-01-01T10:15:00Z');
const record = (fields: Partial<ConfirmationRecord> = {}): ConfirmationRecord => ({
  tool: 'delete_task',
  createdAt,
  expiresAt,
  resolution: null,
  resolvedAt: null,
  ...fields,
});

describe(confirmationState.name, () => {
  it('reads what became of a question from its resolution and its expiry', () => {
    expect(confirmationState(record(), before)).toBe('open');
    expect(confirmationState(record(), after)).toBe('expired');
    expect(confirmationState(record({ resolution: 'confirmed', resolvedAt: before }), after)).toBe('confirmed');
    expect(confirmationState(record({ resolution: 'cancelled', resolvedAt: before }), after)).toBe('cancelled');
    // Dropped while open: the person moved on. Dropped once expired (an answer came too late): it expired.
    expect(confirmationState(record({ resolution: 'dropped', resolvedAt: before }), after)).toBe('set-aside');
    expect(confirmationState(record({ resolution: 'dropped', resolvedAt: after }), after)).toBe('expired');
  });
});

describe(confirmationStateSentence.name, () => {
  it('says an expired or set-aside question as such, never as a no', () => {
    expect(confirmationStateSentence('expired', record())).toBe(
      'The question expired unanswered after 10 minutes, so nothing was deleted.',
    );
    expect(confirmationStateSentence('expired', record({ tool: BULK_CHANGE }))).toBe(
      'The question expired unanswered after 10 minutes, so nothing was changed.',
    );
    expect(confirmationStateSentence('set-aside', record())).toBe('You closed the question without answering it, so nothing was deleted.');
    expect(confirmationStateSentence('cancelled', record())).toBe('You said no, so nothing was deleted.');
    for (const text of [
      confirmationStateSentence('expired', record()),
      confirmationStateSentence('set-aside', record()),
      EXPIRED_CONFIRMATION_REPLY,
    ]) {
      expect(text).not.toMatch(WORDS_OF_A_NO);
    }
  });
});
