import { DOMAIN_ERROR_CODES } from '../../../domain/shared/error-codes';

/** The codes the HTTP layer gives itself: guards, pipes, the body parser, the error filter's fallbacks. */
const TRANSPORT_ERROR_CODES = [
  'AUTH.FORBIDDEN',
  'AUTH.INSUFFICIENT_SCOPE',
  'AUTH.SESSION_REQUIRED',
  'AUTH.UNAUTHENTICATED',
  'HEALTH.DATABASE_UNAVAILABLE',
  'HTTP.ERROR',
  'HTTP.MALFORMED_BODY',
  'HTTP.MALFORMED_JSON',
  'HTTP.METHOD_NOT_ALLOWED',
  'HTTP.NOT_FOUND',
  'HTTP.PAYLOAD_TOO_LARGE',
  'HTTP.RATE_LIMITED',
  'HTTP.UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL',
  'MCP.HOST_NOT_ALLOWED',
  'MCP.ORIGIN_NOT_ALLOWED',
  'MCP.SESSIONS_FULL',
  'TOOLS.CONFIRMATION_REQUIRED',
  'TOOLS.NOT_FOUND',
  'TOOLS.REFUSED',
  'TOOLS.TARGET_NOT_FOUND',
  'VALIDATION.FAILED',
] as const;

/**
 * Every `code` an error body can carry: the error filter writes only these (ApiError's code
 * and DomainError's are typed with them), and the document's ErrorResponseDto.code is this
 * enum, so a client can switch over it exhaustively.
 */
export const ERROR_CODES: readonly ErrorCode[] = [...new Set([...DOMAIN_ERROR_CODES, ...TRANSPORT_ERROR_CODES])].sort();
export type ErrorCode = (typeof DOMAIN_ERROR_CODES)[number] | (typeof TRANSPORT_ERROR_CODES)[number];
