import fc from 'fast-check';
import { durationInWords, type Hold, HOLD_ENDINGS, holdEndingSentence } from '../../../src/domain/shared/hold-ending';
import { WORDS_OF_A_NO } from '../../support/words-of-a-no';

const QUESTION: Hold = { kind: 'question', what: 'the question', who: 'the person', waitedMs: 5 * 60_000, so: 'nothing was deleted' };

describe(holdEndingSentence.name, () => {
  it('says each ending as what happened', () => {
    expect(HOLD_ENDINGS.map((ending) => holdEndingSentence(ending, QUESTION))).toEqual([
      'The person said yes.',
      'The person said no, so nothing was deleted.',
      'The person closed the question without answering it, so nothing was deleted.',
      'The question expired unanswered after 5 minutes, so nothing was deleted.',
      'The person could not be asked, so nothing was deleted.',
    ]);
  });

  it('says a review nobody made in time expired undecided', () => {
    const review: Hold = {
      kind: 'review',
      what: 'the draft',
      who: 'its reviewer',
      waitedMs: 72 * 3_600_000,
      so: 'nothing was sent and its task was cancelled',
    };
    expect(holdEndingSentence('expired', review)).toBe(
      'The draft expired undecided after 3 days, so nothing was sent and its task was cancelled.',
    );
  });

  it('never words an expiry or a dismissal as a no, whatever was held and however long it waited', () => {
    const hold = fc.record({
      kind: fc.constantFrom('question' as const, 'review' as const),
      what: fc.constantFrom('the question', 'that request', 'the draft'),
      who: fc.constantFrom('the person', 'you', 'its reviewer'),
      waitedMs: fc.integer({ min: 1, max: 30 * 24 * 3_600_000 }),
      so: fc.constantFrom('nothing was deleted', 'nothing was changed', 'nothing was sent'),
    });
    fc.assert(
      fc.property(hold, fc.constantFrom('expired' as const, 'dismissed' as const), (held, ending) => {
        const sentence = holdEndingSentence(ending, held);
        expect(sentence).not.toMatch(WORDS_OF_A_NO);
        if (ending === 'expired') expect(sentence).toMatch(/ expired (unanswered|undecided) after \d+ (second|minute|hour|day)s?, so /);
      }),
    );
  });
});

describe(durationInWords.name, () => {
  it('names the largest whole unit', () => {
    expect([1_000, 30_000, 60_000, 90_000, 600_000, 3_600_000, 7_200_000, 86_400_000, 259_200_000].map(durationInWords)).toEqual([
      '1 second',
      '30 seconds',
      '1 minute',
      '90 seconds',
      '10 minutes',
      '1 hour',
      '2 hours',
      '24 hours',
      '3 days',
    ]);
  });
});
