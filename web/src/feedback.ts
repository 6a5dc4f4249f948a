import { ApiError } from './api';
import { h } from './dom';

/** A message a person can act on: the API's own words for a 4xx, never a stack. */
export function errorText(error: unknown): string {
  return error instanceof ApiError ? error.message : 'Something went wrong. Please try again.';
}

/** An error shown in place, announced to screen readers. */
export const alertBox = (error: unknown): HTMLElement => h('p', { class: 'error', role: 'alert' }, errorText(error));

/** Whether the session has ended (401), in which case the console signs out. */
export const sessionEnded = (error: unknown): boolean => error instanceof ApiError && error.status === 401;
