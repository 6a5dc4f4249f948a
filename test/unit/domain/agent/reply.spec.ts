import { CUT_MARKER, Reply } from '../../../../src/domain/agent/reply';

function built(maxChars: number, build: (reply: Reply) => void) {
  const pieces: string[] = [];
  const reply = new Reply(maxChars, (piece) => pieces.push(piece));
  build(reply);
  return { reply, pieces };
}

describe(Reply.name, () => {
  it('emits the pieces it keeps: joined, they are the reply', () => {
    const { reply, pieces } = built(500, (r) => {
      for (const piece of ['Got', ' it! ', 'Added ', "'Milk'", '.']) r.model(piece);
    });
    expect(reply.value).toBe("Got it! Added 'Milk'.");
    expect(pieces.join('')).toBe(reply.value);
  });

  it('starts each model call and each server sentence on a paragraph of its own, without edge spaces', () => {
    const { reply, pieces } = built(500, (r) => {
      r.model('  Let me look.  ');
      r.newParagraph();
      r.model('\nYou have 2 tasks. ');
      r.say("Do you really want to delete 'A'?");
    });
    expect(reply.value).toBe("Let me look.\n\nYou have 2 tasks.\n\nDo you really want to delete 'A'?");
    expect(pieces.join('')).toBe(reply.value);
  });

  it('cuts the model at a word past the bound, with a marker, and drops the rest', () => {
    const { reply, pieces } = built(30, (r) => {
      for (const word of 'one two three four five six seven eight nine ten eleven'.split(' ')) r.model(`${word} `);
    });
    expect(reply.value.length).toBeLessThanOrEqual(30);
    expect(reply.value).toBe(`one two three four five six ${CUT_MARKER}`);
    expect(reply.wasCut).toBe(true);
    expect(pieces.join('')).toBe(reply.value);
  });

  it('cuts one huge piece too, and keeps server sentences after a cut', () => {
    const { reply } = built(100, (r) => {
      r.model('x'.repeat(10_000_000));
      r.say('That request took too long.');
    });
    expect(reply.value).toBe(`${'x'.repeat(98)} ${CUT_MARKER}\n\nThat request took too long.`);
  });

  it('makes model text storable, and keeps a surrogate pair split over two pieces whole', () => {
    const { reply } = built(500, (r) => {
      r.model('a\u0000b \uD83D');
      r.model('\uDE00 done');
    });
    expect(reply.value).toBe('a\uFFFDb \uD83D\uDE00 done');
  });

  it("keeps apart the model's words and the server's sentences, for the reply check", () => {
    const { reply } = built(500, (r) => {
      r.model('  Let me look. ');
      r.model('\n\nStill looking.');
      r.newParagraph();
      r.say("Do you really want to delete 'A'?");
      r.model('Then: done.');
      r.say('That request took too long.');
    });
    expect(reply.modelWords).toBe('Let me look. \n\nStill looking.\n\nThen: done.');
    expect(reply.serverSentences).toEqual(["Do you really want to delete 'A'?", 'That request took too long.']);
    expect(reply.value).toBe(
      "Let me look. \n\nStill looking.\n\nDo you really want to delete 'A'?\n\nThen: done.\n\nThat request took too long.",
    );
  });
});
