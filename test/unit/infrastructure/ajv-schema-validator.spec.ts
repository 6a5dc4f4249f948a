import { Ajv2020 } from 'ajv/dist/2020';
import type { JsonSchema } from '../../../src/domain/agent/tools';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';

describe(AjvSchemaValidator.name, () => {
  it('reports every problem, one per path, each naming its path and rule', () => {
    const sut = new AjvSchemaValidator();
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        a: { type: 'string' },
        b: { type: 'integer', minimum: 1 },
        c: { type: 'string' },
        tags: { type: 'array', items: { type: 'string', enum: ['x', 'y'] }, maxItems: 3 },
      },
      required: ['a', 'c'],
      additionalProperties: false,
    };

    expect(sut.violations(schema, { a: 1, b: 0, tags: ['x', 'z'], extra: true })).toEqual([
      { path: 'arguments.c', rule: 'required', message: 'arguments.c is required' },
      { path: 'arguments.extra', rule: 'not_accepted', message: 'arguments.extra is not an accepted argument' },
      { path: 'arguments.a', rule: 'type', message: 'arguments.a must be a string' },
      { path: 'arguments.b', rule: 'range', limit: 1, message: 'arguments.b must be at least 1' },
      { path: 'arguments.tags[1]', rule: 'enum', message: 'arguments.tags[1] must be one of "x", "y"' },
    ]);
    expect(sut.violations(schema, { a: 'ok', c: 'ok', b: 2, tags: ['x'] })).toEqual([]);
  });

  it.each([
    [{ type: 'string', pattern: '^[a-z]+-[0-9]{3}$' }, 'abc-12', 'pattern', 'must match the pattern ^[a-z]+-[0-9]{3}$'],
    [{ type: 'string', format: 'email' }, 'ada@', 'format', 'must be an email address'],
    [{ type: 'string', format: 'date' }, '2025-02-30', 'format', 'must be a date like 2025-01-31'],
    [{ type: 'string', format: 'uuid' }, 'not-a-uuid', 'format', 'must be a UUID'],
    [{ type: 'integer' }, 1.5, 'type', 'must be a whole number'],
    [{ type: 'integer' }, 'two', 'type', 'must be a number'],
    [{ type: 'number' }, Infinity, 'type', 'must be a number'],
    [{ type: 'string', minLength: 2 }, 'a', 'too_short', 'must be at least 2 characters long'],
  ] as [JsonSchema, unknown, string, string][])('enforces %j on %j', (field, value, rule, words) => {
    const sut = new AjvSchemaValidator();
    const schema: JsonSchema = { type: 'object', properties: { field } };

    expect(sut.violations(schema, { field: value })).toEqual([
      expect.objectContaining({ path: 'arguments.field', rule, message: `arguments.field ${words}` }),
    ]);
  });

  it('counts lengths in characters, as JSON Schema says, not UTF-16 units', () => {
    const sut = new AjvSchemaValidator();
    const schema: JsonSchema = { type: 'object', properties: { t: { type: 'string', maxLength: 2 } } };
    expect(sut.violations(schema, { t: '👩👩' })).toEqual([]);
    expect(sut.violations(schema, { t: '👩👩👩' })).toEqual([expect.objectContaining({ rule: 'too_long', limit: 2 })]);
  });

  it('reads draft-07 when $schema says so, and refuses a dialect it does not know', () => {
    const sut = new AjvSchemaValidator();
    const draft07: JsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { n: { type: 'integer', maximum: 3 } },
    };
    expect(sut.violations(draft07, { n: 4 })).toEqual([expect.objectContaining({ path: 'arguments.n', rule: 'range', limit: 3 })]);
    expect(() => sut.compile({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })).toThrow(/draft-04/);
  });

  it('refuses a schema with an unknown keyword or format instead of skipping it', () => {
    const sut = new AjvSchemaValidator();
    expect(() => sut.compile({ type: 'object', properties: { a: { type: 'string', patern: '^a' } } } as JsonSchema)).toThrow(
      /unknown keyword: "patern"/,
    );
    expect(() => sut.compile({ type: 'object', properties: { a: { type: 'string', format: 'phone' } } })).toThrow(/unknown format "phone"/);
  });

  it('compiles each schema once, however many values it checks', () => {
    const compile = jest.spyOn(Ajv2020.prototype, 'compile');
    try {
      const sut = new AjvSchemaValidator();
      const schema: JsonSchema = { type: 'object', properties: { a: { type: 'string', format: 'email' } } };
      sut.compile(schema);
      for (let i = 0; i < 5; i++) sut.violations(schema, { a: i % 2 ? 'x@example.com' : 'nope' });
      expect(compile).toHaveBeenCalledTimes(1);
    } finally {
      compile.mockRestore();
    }
  });
});
