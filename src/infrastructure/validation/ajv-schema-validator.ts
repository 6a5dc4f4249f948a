import { Injectable } from '@nestjs/common';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonSchema, SchemaRule, SchemaViolation } from '../../domain/agent/tools';
import { SchemaValidator } from '../../application/agent/ports/schema-validator.port';

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

/**
 * - strict: a keyword, format or type combination Ajv does not know refuses the schema at
 *   compile time (the hand-written checker this replaced ignored them, so `pattern` and
 *   `format` went unchecked); NaN and Infinity are not numbers.
 * - allErrors: the model reads every problem of a call at once; arguments are small (the
 *   agent's byte limit, MCP's body limit), so checking all of them is cheap.
 * - verbose: each error carries the value, so `integer` can say "a whole number" to a number.
 * Lengths are in characters (code points), as JSON Schema says; the domain counts UTF-16 units
 * (`title.length`), so a title of emoji can pass here and be refused by the task, by name.
 */
const OPTIONS: Options = { strict: true, allErrors: true, verbose: true };

/** Ajv (JSON Schema 2020-12, or draft-07 when `$schema` says so) with ajv-formats. */
@Injectable()
export class AjvSchemaValidator extends SchemaValidator {
  private readonly dialects = { draft2020: addFormats(new Ajv2020(OPTIONS)), draft07: addFormats(new Ajv(OPTIONS)) };
  /** By schema object: the toolbox's definitions, and the gateway's copies of them, live as long as the process. */
  private readonly compiled = new WeakMap<JsonSchema, ValidateFunction>();

  compile(schema: JsonSchema): void {
    this.validatorFor(schema);
  }

  violations(schema: JsonSchema, value: unknown, root = 'arguments'): readonly SchemaViolation[] {
    const validate = this.validatorFor(schema);
    if (validate(value)) return [];
    const byPath = new Map<string, SchemaViolation>();
    for (const error of validate.errors ?? []) {
      const problem = violationOf(error, root);
      if (problem && !byPath.has(problem.path)) byPath.set(problem.path, problem);
    }
    return [...byPath.values()];
  }

  private validatorFor(schema: JsonSchema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      const { $schema } = schema;
      if ($schema !== undefined && !DRAFT_07.test($schema) && !$schema.includes('/draft/2020-12/')) {
        throw new Error(`A schema declares $schema ${JSON.stringify($schema)}; only draft-07 and 2020-12 are known`);
      }
      validate = ($schema && DRAFT_07.test($schema) ? this.dialects.draft07 : this.dialects.draft2020).compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

/** `/numbers/1` under `arguments` → `arguments.numbers[1]`. */
function pathOf(instancePath: string, root: string): string {
  let path = root;
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
  }
  return path;
}

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** What a format asks for, in words that show an example where one helps. */
const FORMAT_WORDS: Readonly<Record<string, string>> = {
  email: 'an email address',
  date: 'a date like 2025-01-31',
  time: 'a time like 09:30:00Z',
  'date-time': 'a date and time like 2025-01-31T09:30:00Z',
  uri: 'an absolute URI like https://example.com/page',
  url: 'a URL like https://example.com/page',
  uuid: 'a UUID',
  hostname: 'a host name',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
};

/** One Ajv error in the words of the checker it replaced: the path, then the rule. */
function violationOf(error: ErrorObject, root: string): SchemaViolation | null {
  const params = error.params as Record<string, unknown>;
  const at = pathOf(error.instancePath, root);
  const found = (path: string, rule: SchemaRule, words: string, limit?: number): SchemaViolation => ({
    path,
    rule,
    message: `${path} ${words}`,
    ...(limit === undefined ? {} : { limit }),
  });
  const limit = params.limit as number;
  switch (error.keyword) {
    case 'required':
      return found(`${at}.${String(params.missingProperty)}`, 'required', 'is required');
    case 'additionalProperties':
      return found(`${at}.${String(params.additionalProperty)}`, 'not_accepted', 'is not an accepted argument');
    case 'type': {
      const types = String(params.type).split(',');
      // A fraction for an integer is the right type of thing, not a whole number.
      const words = types.map((type) => (type === 'integer' && typeof error.data !== 'number' ? 'a number' : (TYPE_WORDS[type] ?? type)));
      return found(at, 'type', `must be ${words.join(' or ')}`);
    }
    case 'enum':
      return found(at, 'enum', `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
    case 'const':
      return found(at, 'enum', `must be ${JSON.stringify(params.allowedValue)}`);
    case 'minLength':
      return found(at, 'too_short', `must be at least ${limit} characters long`, limit);
    case 'maxLength':
      return found(at, 'too_long', `must be at most ${limit} characters long`, limit);
    case 'minItems':
      return found(at, 'too_short', `must have at least ${limit} items`, limit);
    case 'maxItems':
      return found(at, 'too_long', `must have at most ${limit} items`, limit);
    case 'minimum':
      return found(at, 'range', `must be at least ${limit}`, limit);
    case 'maximum':
      return found(at, 'range', `must be at most ${limit}`, limit);
    case 'exclusiveMinimum':
      return found(at, 'range', `must be more than ${limit}`, limit);
    case 'exclusiveMaximum':
      return found(at, 'range', `must be less than ${limit}`, limit);
    case 'pattern':
      return found(at, 'pattern', `must match the pattern ${String(params.pattern)}`);
    case 'format': {
      const format = String(params.format);
      return found(at, 'format', `must be ${FORMAT_WORDS[format] ?? `in the format ${format}`}`);
    }
    // `if` reports the failing branch's errors too: its summary adds nothing.
    case 'if':
      return null;
    default:
      return found(at, 'invalid', error.message ?? `breaks the rule ${error.keyword}`);
  }
}
