/** One page of a list, newest first unless the route says otherwise. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Opaque; null on the last page. */
  readonly nextCursor: string | null;
}
