import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

/** The statuses the error filter answers with (http-error.filter.ts). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 503;

/**
 * 401, 403 and 429 are what the route's guards and rate limits refuse, which the document
 * derives from them (openapi-access.ts). A route names one of them only for a refusal of its
 * own handler, with a description that says which.
 */
type SharedStatus = Exclude<ErrorStatus, 401 | 403 | 429>;

/** What a status means on most routes, and the codes its body may carry. */
const DESCRIPTIONS: Record<SharedStatus, string> = {
  400:
    'Invalid input. VALIDATION.FAILED: the message names the field; HTTP.MALFORMED_JSON or HTTP.MALFORMED_BODY: ' +
    'the body is not valid JSON or not UTF-8; or a domain rule of the input (TODO.INVALID_TASK, ' +
    'OUTREACH.INVALID_CAMPAIGN, VALIDATION.INVALID_CURSOR, …)',
  404: "No such resource, or not the user's; the code names which (TODO.TASK_NOT_FOUND, OUTREACH.CAMPAIGN_NOT_FOUND, …)",
  405: 'HTTP.METHOD_NOT_ALLOWED',
  409: 'Conflicts with the current state; the code names how',
  413: 'HTTP.PAYLOAD_TOO_LARGE: the JSON body is larger than 64 KB',
  415: 'HTTP.UNSUPPORTED_MEDIA_TYPE',
  500: 'INTERNAL: an unexpected failure; its correlationId finds it in the logs',
  503: 'A dependency is unavailable',
};

/** A status with the shared meaning above, or with what it means on this route. */
export type ErrorResponseSpec = SharedStatus | { status: ErrorStatus; description: string };

/**
 * Documents the error responses a route gives, all with the one error body. On a class it
 * covers every route of the controller; a route's own entry for the same status replaces
 * the class's. Whatever a route does not list (a malformed or oversized body where it takes
 * none, an unexpected failure) is the document's `default` response (openapi.ts); what its
 * guards and limits refuse (401, 403, 429) the document adds (openapi-access.ts).
 */
export function ApiErrors(...errors: ErrorResponseSpec[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...errors.map((error) => {
      const { status, description } = typeof error === 'number' ? { status: error, description: DESCRIPTIONS[error] } : error;
      return ApiResponse({ status, description, type: ErrorResponseDto });
    }),
  );
}
