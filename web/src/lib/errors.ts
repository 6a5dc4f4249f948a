import { ApiError } from '../api';

/** A message a person can act on: the API's own words for a 4xx, never a stack. */
export function errorText(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Something went wrong. Please try again.';
}
