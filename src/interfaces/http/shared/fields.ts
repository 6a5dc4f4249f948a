import { Transform } from 'class-transformer';
import { ValidateIf } from 'class-validator';
import { parseCanonicalInteger } from '../../../domain/shared/untrusted-input';

/**
 * The one way text from a path or query becomes a number: decimal digits only, so `0x2`,
 * `4e0`, ` 5` and `05` stay text and `@IsInt` refuses them (`Number()` would take them all).
 */
export function ToInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (parseCanonicalInteger(value) ?? value) : value));
}

/**
 * An optional field: absent skips validation, null does not (class-validator's IsOptional
 * lets null through to code that expects a value).
 */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

/** An optional field where null is a value of its own (e.g. "no description"). */
export function OptionalOrNull(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);
}
