import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

/** The statuses the error filter answers with (http-error.filter.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 503;

/** What a status means on most routes, and the codes its body may carry. */
const DESCRIPTIONS: Record<ErrorStatus, string> = {
  400:
    'Invalid input. VALIDATION.FAILED: the message names the field; HTTP.MALFORMED_JSON or HTTP.MALFORMED_BODY: ' +
    'the body is not valid JSON or not UTF-8; or a domain rule of the input (TODO.INVALID_TASK, ' +
    'OUTREACH.INVALID_CAMPAIGN, VALIDATION.INVALID_CURSOR, …)',
  401:
    'AUTH.UNAUTHENTICATED: no bearer token, an invalid or expired one, one whose account no longer exists, or one issued ' +
    'before the password was last changed',
  403: "AUTH.FORBIDDEN: the path names another user than the bearer token's",
  404: "No such resource, or not the user's; the code names which (TODO.TASK_NOT_FOUND, OUTREACH.CAMPAIGN_NOT_FOUND, …)",
  405: 'HTTP.METHOD_NOT_ALLOWED',
  409: 'Conflicts with the current state; the code names how',
  413: 'HTTP.PAYLOAD_TOO_LARGE: the JSON body is larger than 64 KB',
  415: 'HTTP.UNSUPPORTED_MEDIA_TYPE',
  429: 'HTTP.RATE_LIMITED: too many requests; retry in a minute',
  500: 'INTERNAL: an unexpected failure; its correlationId finds it in the logs',
  503: 'A dependency is unavailable',
};

/** A status with the shared meaning above, or with what it means on this route. */
export type ErrorResponseSpec = ErrorStatus | { status: ErrorStatus; description: string };

/**
 * Documents the error responses a route gives, all with the one error body. On a class it
 * covers every route of the controller; a route's own entry for the same status replaces
 * the class's. Whatever a route does not list (a malformed or oversized body where it takes
 * none, an unexpected failure) is the document's `default` response (openapi.ts).
 */
export function ApiErrors(...errors: ErrorResponseSpec[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...errors.map((error) => {
      const { status, description } = typeof error === 'number' ? { status: error, description: DESCRIPTIONS[error] } : error;
      return ApiResponse({ status, description, type: ErrorResponseDto });
    }),
  );
}
