/**
 * A streamed reply, let out only as far as it was checked: nothing of the model's words
 * reaches the person before the words up to it passed the reply check (reply-check.ts). The
 * model's words are held until a sentence or a line ends (or its call does: a tool call, or a
 * sentence of the server's, follows); then everything it wrote so far is checked, and the
 * pieces up to there go out, in the pieces they came in. A sentence is the unit because every
 * rule's words stay inside one: an Ajv message, an identifier, a code, a stack frame, or the
 * start of a JSON fragment (`{"x":`), so a check never passes half of a phrase whose other
 * half is still to come.
 *
 * Once a check fails, nothing more goes out: `finish` says whether the whole reply passed in
 * the end (then the rest goes out) or not (then nothing does; the caller sends the server's
 * replacement). What went out before is words that passed.
 */
export class ReplyGate {
  /** Pieces not yet let out, in order. */
  private readonly held: { text: string; from: 'model' | 'server' }[] = [];
  /** Every piece of the model's words so far, joined: what the check reads. */
  private modelText = '';
  /** How much of modelText passed the check. */
  private checked = 0;
  /** How much of modelText went out. */
  private sent = 0;
  /** Where in modelText to look for the next end of a sentence. */
  private scanned = 0;
  private stopped = false;
  private finished = false;

  constructor(
    /** True when the model's words, as far as they go, are fit for the person. */
    private readonly fits: (modelWords: string) => boolean,
    private readonly emit: (piece: string) => void,
  ) {}

  /** A piece of the reply: the model's words, or a sentence of the server's own (after which the model's words before it are whole). */
  piece(text: string, from: 'model' | 'server'): void {
    if (this.finished || text === '') return;
    this.held.push({ text, from });
    if (from === 'model') {
      this.modelText += text;
      this.release(this.sentenceEnd());
    } else {
      this.release(this.modelText.length);
    }
  }

  /** The model's words so far are whole: its call ended (a tool call follows). */
  boundary(): void {
    this.release(this.modelText.length);
  }

  /** The reply is settled: when it passed, what is held goes out; when not, nothing more does. */
  finish(fit: boolean): void {
    if (this.finished) return;
    if (fit) {
      this.stopped = false;
      this.checked = this.modelText.length;
      this.drain();
    }
    this.finished = true;
    this.held.length = 0;
  }

  /** Checks the model's words up to `upTo`, and lets out what passed. */
  private release(upTo: number): void {
    if (this.stopped) return;
    if (upTo > this.checked) {
      if (!this.fits(this.modelText.slice(0, upTo))) {
        this.stopped = true;
        return;
      }
      this.checked = upTo;
    }
    this.drain();
  }

  /** Lets out the held pieces in order, a model piece as far as its words were checked. */
  private drain(): void {
    while (this.held.length > 0) {
      const next = this.held[0];
      if (next.from === 'server') {
        this.emit(next.text);
        this.held.shift();
        continue;
      }
      const room = this.checked - this.sent;
      if (room <= 0) return;
      if (next.text.length <= room) {
        this.emit(next.text);
        this.sent += next.text.length;
        this.held.shift();
        continue;
      }
      this.emit(next.text.slice(0, room));
      this.sent += room;
      next.text = next.text.slice(room);
      return;
    }
  }

  /** Where the last sentence or line of the model's words ends (after `.`, `!` or `?` and a blank, or after a line break). */
  private sentenceEnd(): number {
    let end = this.checked;
    const text = this.modelText;
    for (let i = Math.max(this.scanned, 1); i < text.length; i++) {
      if (text[i - 1] === '\n') end = i;
      else if (isBlank(text[i]) && (text[i - 1] === '.' || text[i - 1] === '!' || text[i - 1] === '?')) end = i;
    }
    this.scanned = text.length;
    return end;
  }
}

function isBlank(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r';
}
