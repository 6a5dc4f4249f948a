export abstract class IdGenerator {
  /** A new random UUID. */
  abstract next(): string;
}
