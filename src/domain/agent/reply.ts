import { storableText } from '../shared/untrusted-input';

/** What ends a reply cut at its bound. */
export const CUT_MARKER = '…';

/**
 * What a piece may end with that must wait for the next one: spaces, half of a surrogate pair.
 * Tried only where a run of spaces starts, so a long run is read once, not once per space.
 */
const HELD_TAIL = /(?<!\s)\s*[\uD800-\uDBFF]?$/;

/**
 * The reply a person reads, built piece by piece as the model streams it and the server
 * adds its own sentences, and told to `emit` in the same pieces, each with whose words it
 * holds: what was emitted, joined, is always the reply. The model's words are made storable and bounded (past `maxChars`
 * they are cut at a word, with a marker, and the rest is dropped); the server's sentences
 * (a confirmation question, a failure) are short by construction and always added. Each
 * model call's text, and each server sentence, is a paragraph of its own; no paragraph
 * starts or ends with spaces.
 */
export class Reply {
  private text = '';
  /** The model's words of the reply, as kept: what reply-check.ts reads. */
  private words = '';
  private readonly sentences: string[] = [];
  private cut = false;
  private paragraphOpen = false;
  /** Trailing spaces or a high surrogate of the last piece, sent only if more text follows. */
  private held = '';

  constructor(
    private readonly maxChars: number,
    private readonly emit: (piece: string, from: 'model' | 'server') => void = () => undefined,
  ) {}

  /** The reply so far. */
  get value(): string {
    return this.text;
  }

  /** The model's words in the reply (its paragraphs joined by blank lines), without the server's sentences. */
  get modelWords(): string {
    return this.words;
  }

  /** The server's own sentences in the reply, in order. */
  get serverSentences(): readonly string[] {
    return [...this.sentences];
  }

  /** True once the model's words ran past the bound. */
  get wasCut(): boolean {
    return this.cut;
  }

  /** The next model text belongs to a new paragraph (it comes from a new model call). */
  newParagraph(): void {
    this.held = '';
    this.paragraphOpen = false;
  }

  /** A piece of the model's text, as it arrived. */
  model(piece: string): void {
    if (this.cut) return;
    let text = this.held + piece;
    this.held = HELD_TAIL.exec(text)?.[0] ?? '';
    text = storableText(text.slice(0, text.length - this.held.length));
    let opened = false;
    if (!this.paragraphOpen) {
      text = text.replace(/^\s+/, '');
      if (text === '') return;
      if (this.text !== '') text = `\n\n${text}`;
      if (this.words !== '') this.words += '\n\n';
      this.paragraphOpen = true;
      opened = true;
    }
    const room = this.maxChars - this.text.length;
    if (text.length > room) {
      const kept = wordsWithin(text, room - CUT_MARKER.length - 1);
      text = kept === '' ? `${/^\s/.test(text) ? ' ' : ''}${CUT_MARKER}` : `${kept} ${CUT_MARKER}`;
      this.cut = true;
    }
    this.words += opened && text.startsWith('\n\n') ? text.slice(2) : text;
    this.append(text, 'model');
  }

  /** A sentence of the server's own, in a paragraph of its own. */
  say(sentence: string): void {
    this.newParagraph();
    this.sentences.push(sentence);
    this.append(this.text === '' ? sentence : `\n\n${sentence}`, 'server');
  }

  private append(text: string, from: 'model' | 'server'): void {
    if (text === '') return;
    this.text += text;
    this.emit(text, from);
  }
}

/** The longest start of `text` within `max` characters that ends with a whole word. */
function wordsWithin(text: string, max: number): string {
  if (max <= 0) return '';
  let head = text.slice(0, max);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  const endsWord = text.length === head.length || /\s/.test(text[head.length]);
  const lastSpace = head.search(/\s\S*$/);
  return (endsWord || lastSpace <= 0 ? head : head.slice(0, lastSpace)).trimEnd();
}
