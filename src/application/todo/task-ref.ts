/** Addresses one task of one user; another user's task is simply not found. */
export interface TaskRef {
  readonly userId: string;
  readonly number: number;
}
