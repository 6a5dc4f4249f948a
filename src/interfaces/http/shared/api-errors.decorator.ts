import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ErrorResponseDto } from './error-response.dto';

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input; the message names the field',
  401: 'Missing, invalid or expired bearer token, or wrong credentials',
  403: 'The token does not belong to this user',
  404: 'No such resource',
  409: 'Conflicts with existing data',
  413: 'Request body too large (64 KB of JSON, 2 MB of CSV)',
  429: 'Too many requests; retry later',
  500: 'Unexpected failure; its correlationId finds it in the logs',
  503: 'A dependency is unavailable',
};

/** Documents the error responses a route can give, all with the one error body. */
export function ApiErrors(...statuses: number[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({ status, description: DESCRIPTIONS[status], type: ErrorResponseDto }),
    ),
  );
}
