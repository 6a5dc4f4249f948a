import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { unexpectedErrorSentence } from '../../../domain/agent/failures';
import { DomainError, type DomainErrorKind, RateLimitedError } from '../../../domain/shared/domain-error';
import { StaleTokenError } from '../../../domain/identity/user';
import { PolicyRefusedError } from '../../../domain/policy/policy-refused-error';
import { bearerChallenge, ProtectedResource } from '../guards/bearer-challenge';
import { ApiError } from './api-error';
import type { ErrorCode } from './error-codes';
import { requestIdOf } from './request-id';

interface ErrorDescription {
  status: number;
  code: ErrorCode;
  message: string;
}

const STATUS_OF_KIND: Record<DomainErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
};

const CODE_OF_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'VALIDATION.FAILED',
  401: 'AUTH.UNAUTHENTICATED',
  403: 'AUTH.FORBIDDEN',
  404: 'HTTP.NOT_FOUND',
  405: 'HTTP.METHOD_NOT_ALLOWED',
  413: 'HTTP.PAYLOAD_TOO_LARGE',
  415: 'HTTP.UNSUPPORTED_MEDIA_TYPE',
  429: 'HTTP.RATE_LIMITED',
};

/**
 * The one exception filter: every error leaves as `{statusCode, code, message, correlationId}`.
 * An unexpected one (500) says only that, and where to get help (SUPPORT_CONTACT, `supportContact`).
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(
    private readonly logger: PinoLogger,
    private readonly resource: ProtectedResource,
    private readonly supportContact: string | null,
  ) {
    logger.setContext(HttpErrorFilter.name);
  }

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const { status, code, message } = describe(exception, this.supportContact);
    if (status >= 500) {
      this.logger.error({ err: exception, method: req.method, path: req.path }, 'request failed');
    }
    if (res.headersSent) return;
    if (exception instanceof RateLimitedError) {
      // As @nestjs/throttler answers for its named limits, and the standard header too.
      res.setHeader('Retry-After', wholeSeconds(exception.retryAfterSeconds));
      res.setHeader(`Retry-After-${exception.limit}`, wholeSeconds(exception.retryAfterSeconds));
    }
    if (exception instanceof ApiError && exception.retryAfterSeconds !== undefined) {
      res.setHeader('Retry-After', wholeSeconds(exception.retryAfterSeconds));
    }
    if (status === 429 && !res.hasHeader('Retry-After')) res.setHeader('Retry-After', retryAfterOf(res));
    if (exception instanceof StaleTokenError) {
      // Refused past the bearer guard (a check it left to the handler): the same challenge it sends.
      res.setHeader('WWW-Authenticate', bearerChallenge(this.resource, { code: 'invalid_token', description: message }));
    }
    // A refused policy lists every problem (PolicyRefusedResponseDto), so the admin fixes them all at once.
    const problems = exception instanceof PolicyRefusedError ? { problems: exception.problems } : {};
    res.status(status).json({ statusCode: status, code, message, correlationId: requestIdOf(req), ...problems });
  }
}

function describe(exception: unknown, supportContact: string | null): ErrorDescription {
  if (exception instanceof DomainError) {
    return { status: STATUS_OF_KIND[exception.kind], code: exception.code, message: exception.message };
  }
  if (exception instanceof ApiError) {
    return { status: exception.getStatus(), code: exception.code, message: exception.message };
  }
  if (exception instanceof ThrottlerException) {
    return { status: 429, code: 'HTTP.RATE_LIMITED', message: 'Too many requests; please retry in a minute' };
  }
  if (exception instanceof HttpException) {
    const bodyParserFailure = describeBodyParserFailure(exception.cause);
    if (bodyParserFailure) return bodyParserFailure;
    const status = exception.getStatus();
    return { status, code: CODE_OF_STATUS[status] ?? 'HTTP.ERROR', message: messageOf(exception) };
  }
  return { status: 500, code: 'INTERNAL', message: unexpectedErrorSentence(supportContact) };
}

/** What a 429 without a wait of its own says: the shortest window of any limit (a minute). */
const DEFAULT_RETRY_AFTER_SECONDS = 60;

/**
 * Retry-After for a 429 that has none: @nestjs/throttler sets the standard header for its
 * `default` limit only, and only `Retry-After-<name>` for a named one (sign-in, mcp), which
 * HTTP clients do not know to read. Every 429 carries the standard header (RFC 9110
 * §10.2.3), in whole seconds.
 */
function retryAfterOf(res: Response): number {
  const named = res
    .getHeaderNames()
    .filter((name) => name.startsWith('retry-after-'))
    .map((name) => Number(res.getHeader(name)))
    .filter((seconds) => Number.isFinite(seconds));
  return named.length > 0 ? wholeSeconds(Math.max(...named)) : DEFAULT_RETRY_AFTER_SECONDS;
}

/** At least 1: `Retry-After: 0` would invite the retry at once. */
function wholeSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds));
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  return typeof message === 'string' ? message : exception.message;
}

/**
 * body-parser's failures carry `type` and `status`; Nest's Express adapter wraps them in an
 * HttpException whose `cause` is the original.
 */
function describeBodyParserFailure(cause: unknown): ErrorDescription | null {
  const { type, limit } = (cause ?? {}) as { type?: unknown; limit?: unknown };
  if (type === 'entity.parse.failed') {
    return { status: 400, code: 'HTTP.MALFORMED_JSON', message: 'The request body is not valid JSON' };
  }
  if (type === 'encoding.invalid') {
    return { status: 400, code: 'HTTP.MALFORMED_BODY', message: 'The request body is not valid UTF-8' };
  }
  if (type === 'entity.too.large') {
    const size = typeof limit === 'number' ? `${Math.round(limit / 1024)} KB` : 'the limit';
    return { status: 413, code: 'HTTP.PAYLOAD_TOO_LARGE', message: `The request body is larger than ${size}` };
  }
  return null;
}
