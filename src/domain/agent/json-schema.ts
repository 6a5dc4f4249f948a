import type { JsonSchema } from './tools';

/**
 * Which rule a value broke: enough for a person-facing sentence ("That title is too long").
 * `invalid` is any other keyword (a combination such as anyOf, uniqueItems…).
 */
export type SchemaRule =
  'enum' | 'type' | 'required' | 'not_accepted' | 'too_short' | 'too_long' | 'range' | 'pattern' | 'format' | 'invalid';

export interface SchemaViolation {
  /** `arguments.title`, `arguments.numbers[2]`. */
  readonly path: string;
  readonly rule: SchemaRule;
  /** The bound that was crossed (characters, items or value), for too_short, too_long and range. */
  readonly limit?: number;
  /** For the caller that sent it: names the path and the rule. */
  readonly message: string;
}

const violation = (path: string, rule: SchemaRule, message: string, limit?: number): SchemaViolation[] => [
  { path, rule, message: `${path} ${message}`, ...(limit === undefined ? {} : { limit }) },
];

/**
 * Checks a planner's proposed action against its contract (ACTION_CONTRACTS in
 * outreach/actions.ts), which uses only these keywords: type, properties, required,
 * additionalProperties, enum, string and array lengths, numeric bounds, items. Any other
 * keyword is ignored, so a contract must not use one. Tool arguments are not checked here:
 * the tool server checks them with a complete JSON Schema implementation (SchemaCheck in
 * tool-call-validation.ts). Returns one violation per problem, each naming its path.
 */
export function schemaViolations(schema: JsonSchema, value: unknown, path = 'arguments'): SchemaViolation[] {
  if (schema.enum && !schema.enum.some((allowed) => allowed === value)) {
    return violation(path, 'enum', `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  }
  switch (schema.type) {
    case undefined:
      return [];
    case 'object':
      return objectViolations(schema, value, path);
    case 'array':
      return arrayViolations(schema, value, path);
    case 'string':
      if (typeof value !== 'string') return violation(path, 'type', 'must be a string');
      if (schema.minLength !== undefined && value.length < schema.minLength) {
        return violation(path, 'too_short', `must be at least ${schema.minLength} characters long`, schema.minLength);
      }
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        return violation(path, 'too_long', `must be at most ${schema.maxLength} characters long`, schema.maxLength);
      }
      return [];
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return violation(path, 'type', 'must be a number');
      if (schema.type === 'integer' && !Number.isInteger(value)) return violation(path, 'type', 'must be a whole number');
      if (schema.minimum !== undefined && value < schema.minimum)
        return violation(path, 'range', `must be at least ${schema.minimum}`, schema.minimum);
      if (schema.maximum !== undefined && value > schema.maximum)
        return violation(path, 'range', `must be at most ${schema.maximum}`, schema.maximum);
      return [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : violation(path, 'type', 'must be true or false');
    case 'null':
      return value === null ? [] : violation(path, 'type', 'must be null');
  }
}

function objectViolations(schema: JsonSchema, value: unknown, path: string): SchemaViolation[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return violation(path, 'type', 'must be an object');
  const record = value as Record<string, unknown>;
  const properties = schema.properties ?? {};
  const problems: SchemaViolation[] = [];
  for (const name of schema.required ?? []) {
    if (record[name] === undefined) problems.push(...violation(`${path}.${name}`, 'required', 'is required'));
  }
  for (const [name, field] of Object.entries(record)) {
    // Own keys only: `constructor` or `__proto__` must not find Object.prototype's.
    const fieldSchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (fieldSchema) problems.push(...schemaViolations(fieldSchema, field, `${path}.${name}`));
    else if (schema.additionalProperties === false)
      problems.push(...violation(`${path}.${name}`, 'not_accepted', 'is not an accepted argument'));
  }
  return problems;
}

function arrayViolations(schema: JsonSchema, value: unknown, path: string): SchemaViolation[] {
  if (!Array.isArray(value)) return violation(path, 'type', 'must be an array');
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    return violation(path, 'too_short', `must have at least ${schema.minItems} items`, schema.minItems);
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    return violation(path, 'too_long', `must have at most ${schema.maxItems} items`, schema.maxItems);
  }
  return schema.items ? value.flatMap((item, i) => schemaViolations(schema.items!, item, `${path}[${i}]`)) : [];
}
