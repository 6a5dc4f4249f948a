import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ApiError } from './api-error';

/** Strict request validation: unknown fields are rejected and every message names its field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new ApiError(400, 'VALIDATION.FAILED', flatten(errors).join('; ')),
  });
}

function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith('property ') ? `${path}: unknown field, not allowed` : message,
    );
    return [...own, ...flatten(error.children ?? [], path)];
  });
}
