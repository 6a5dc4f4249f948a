import fc from 'fast-check';
import { replyProblem, type ReplyVocabulary } from '../../../../src/domain/agent/reply-check';
import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { identifier, inSentence, ordinarySentence, UNFIT } from '../../../support/unfit-words';

const vocabulary: ReplyVocabulary = { toolNames: TODO_TOOLS.map((tool) => tool.name), echoes: [] };

/**
 * What the person reads that the server did not write for them is checked: a validator's
 * message, a UUID, a field name, a JSON fragment, a stack trace or an error code, anywhere in
 * an ordinary sentence, is found; an ordinary sentence about tasks (titles with numbers,
 * times, dates, emails, links, money) is not.
 */
describe('the reply check, over generated words', () => {
  it.each(Object.entries(UNFIT))('finds %s in a sentence', (_, thing) => {
    fc.assert(
      fc.property(inSentence(thing), ({ text }) => {
        expect(replyProblem(text, vocabulary)).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('finds nothing wrong with ordinary sentences, alone or together', () => {
    fc.assert(
      fc.property(fc.array(ordinarySentence, { minLength: 1, maxLength: 3 }), (sentences) => {
        expect(replyProblem(sentences.join(' '), vocabulary)).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it("lets the person's own identifiers and UUIDs be said back", () => {
    fc.assert(
      fc.property(fc.oneof(identifier, fc.uuid()), ordinarySentence, (word, sentence) => {
        const echoes = [`please add "fix ${word}"`];
        expect(replyProblem(`Added 'fix ${word}'. ${sentence}`, { ...vocabulary, echoes })).toBeNull();
      }),
    );
  });
});
