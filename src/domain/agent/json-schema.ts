import type { JsonSchema } from './tools';

/**
 * Checks `value` against the JSON Schema subset of tool inputs: type, properties,
 * required, additionalProperties, enum, string and array lengths, numeric bounds, items.
 * Unknown keywords are ignored. Returns one message per problem, each naming its path.
 */
export function schemaViolations(schema: JsonSchema, value: unknown, path = 'arguments'): string[] {
  if (schema.enum && !schema.enum.some((allowed) => allowed === value)) {
    return [`${path} must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`];
  }
  switch (schema.type) {
    case undefined:
      return [];
    case 'object':
      return objectViolations(schema, value, path);
    case 'array':
      return arrayViolations(schema, value, path);
    case 'string':
      if (typeof value !== 'string') return [`${path} must be a string`];
      if (schema.minLength !== undefined && value.length < schema.minLength) {
        return [`${path} must be at least ${schema.minLength} characters long`];
      }
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        return [`${path} must be at most ${schema.maxLength} characters long`];
      }
      return [];
    case 'integer':
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return [`${path} must be a number`];
      if (schema.type === 'integer' && !Number.isInteger(value)) return [`${path} must be a whole number`];
      if (schema.minimum !== undefined && value < schema.minimum) return [`${path} must be at least ${schema.minimum}`];
      if (schema.maximum !== undefined && value > schema.maximum) return [`${path} must be at most ${schema.maximum}`];
      return [];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${path} must be true or false`];
    case 'null':
      return value === null ? [] : [`${path} must be null`];
  }
}

function objectViolations(schema: JsonSchema, value: unknown, path: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path} must be an object`];
  const record = value as Record<string, unknown>;
  const properties = schema.properties ?? {};
  const problems: string[] = [];
  for (const name of schema.required ?? []) {
    if (record[name] === undefined) problems.push(`${path}.${name} is required`);
  }
  for (const [name, field] of Object.entries(record)) {
    // Own keys only: `constructor` or `__proto__` must not find Object.prototype's.
    const fieldSchema = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (fieldSchema) problems.push(...schemaViolations(fieldSchema, field, `${path}.${name}`));
    else if (schema.additionalProperties === false) problems.push(`${path}.${name} is not an accepted argument`);
  }
  return problems;
}

function arrayViolations(schema: JsonSchema, value: unknown, path: string): string[] {
  if (!Array.isArray(value)) return [`${path} must be an array`];
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    return [`${path} must have at least ${schema.minItems} items`];
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    return [`${path} must have at most ${schema.maxItems} items`];
  }
  return schema.items ? value.flatMap((item, i) => schemaViolations(schema.items!, item, `${path}[${i}]`)) : [];
}
