import { toGeminiSchema } from '../../../src/infrastructure/llm/gemini/gemini-schema';
import { TODO_TOOLS } from '../../../src/application/todo/tools/todo-tool-definitions';

describe(toGeminiSchema.name, () => {
  it('drops what Gemini rejects and keeps what it reads', () => {
    expect(toGeminiSchema(TODO_TOOLS[0].inputSchema)).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 200 },
        description: { type: 'string', maxLength: 2000 },
        priority: { type: 'string', enum: ['low', 'medium', 'high'] },
      },
      required: ['title'],
    });
  });

  it('inlines $refs, cuts cycles, and cleans schemas an MCP server might send', () => {
    const fromMcp = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      $defs: {
        Person: { type: 'object', properties: { email: { type: 'string', format: 'email' }, boss: { $ref: '#/$defs/Person' } } },
      },
      properties: {
        owner: { $ref: '#/$defs/Person', description: 'who' },
        when: { type: 'string', format: 'date-time', default: 'now' },
        kind: { const: 'meeting' },
        tags: { type: 'array', items: { type: 'string', pattern: '^x' } },
      },
    };
    expect(toGeminiSchema(fromMcp)).toEqual({
      type: 'object',
      properties: {
        owner: {
          type: 'object',
          description: 'who',
          properties: { email: { type: 'string' }, boss: { type: 'object' } },
        },
        when: { type: 'string', format: 'date-time' },
        kind: { enum: ['meeting'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
    });
  });
});
