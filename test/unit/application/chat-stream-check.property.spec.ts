import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { type Completion, type CompletionRequest, LanguageModel } from '../../../src/application/agent/ports/language-model.port';
import { inSentence, ordinarySentence, UNFIT } from '../../support/unfit-words';
import { type OfflineChat, startOfflineChat } from '../../support/offline-chat';

const account = { kind: 'checked-by-guard' } as const;

/** A model that answers in words, streamed in the pieces it is given. */
class PiecesModel extends LanguageModel {
  readonly provider = 'scripted';
  readonly model = 'pieces';
  pieces: readonly string[] = [];

  complete(): Promise<Completion> {
    return Promise.resolve({
      text: this.pieces.join(''),
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1 },
      finishReason: 'stop',
    });
  }

  override async stream(request: CompletionRequest, onText: (text: string) => void): Promise<Completion> {
    for (const piece of this.pieces) if (piece !== '') onText(piece);
    return this.complete();
  }
}

/** `text` cut at some places into the pieces a provider streams. */
function inPieces(text: string): fc.Arbitrary<string[]> {
  return fc.uniqueArray(fc.nat({ max: text.length }), { maxLength: 12 }).map((cuts) => {
    const at = [0, ...cuts.sort((a, b) => a - b), text.length];
    return at.slice(1).map((end, i) => text.slice(at[i], end));
  });
}

/**
 * On the stream, the model's words never reach the person before they were checked: whatever
 * unfit words a sentence holds, and however the provider cuts the answer into pieces, no
 * delta carries them (nor anything after them), and the reply is replaced. Fit words all go
 * out, as deltas that join to the reply.
 */
describe('the chat stream lets out only checked words', () => {
  const model = new PiecesModel();
  let sut: OfflineChat;

  beforeAll(async () => {
    sut = await startOfflineChat({}, { languageModel: model });
  });
  afterAll(() => sut?.close());

  async function streamed(pieces: readonly string[]) {
    model.pieces = pieces;
    const deltas: string[] = [];
    const replaced: string[] = [];
    const reply = await sut.chat.execute(
      { userId: randomUUID(), account, message: 'what is on my list?' },
      { text: (piece) => deltas.push(piece), replace: (text) => replaced.push(text) },
    );
    return { reply, shown: deltas.join(''), replaced };
  }

  it.each(Object.entries(UNFIT))('never sends %s, after an ordinary sentence or not', async (_, thing) => {
    const answer = fc
      .tuple(fc.option(ordinarySentence, { nil: undefined }), inSentence(thing))
      .map(([before, unfit]) => ({ text: before === undefined ? unfit.text : `${before} ${unfit.text}`, thing: unfit.thing }))
      .chain((unfit) => inPieces(unfit.text).map((pieces) => ({ ...unfit, pieces })));
    await fc.assert(
      fc.asyncProperty(answer, async ({ text, thing, pieces }) => {
        const { reply, shown, replaced } = await streamed(pieces);
        expect(text.startsWith(shown)).toBe(true);
        expect(shown.length).toBeLessThanOrEqual(text.indexOf(thing));
        expect(replaced).toEqual([reply.response]);
        expect(reply.response).not.toContain(thing);
      }),
      { numRuns: 60 },
    );
  });

  it('sends every fit word, as deltas that join to the reply', async () => {
    const answer = fc
      .array(ordinarySentence, { minLength: 1, maxLength: 3 })
      .map((sentences) => sentences.join(' '))
      .chain((text) => inPieces(text).map((pieces) => ({ text, pieces })));
    await fc.assert(
      fc.asyncProperty(answer, async ({ text, pieces }) => {
        const { reply, shown, replaced } = await streamed(pieces);
        expect(replaced).toEqual([]);
        expect(reply.response).toBe(text.trim());
        expect(shown).toBe(reply.response);
      }),
      { numRuns: 100 },
    );
  });
});
