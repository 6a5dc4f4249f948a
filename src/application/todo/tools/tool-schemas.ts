import type { JsonSchema } from '../../../domain/agent/tools';
import { DESCRIPTION_MAX_LENGTH, TASK_NUMBER_MAX, TASK_PRIORITIES, TITLE_MAX_LENGTH } from '../../../domain/todo/task';

/** The pieces the todo tools' schemas are made of. */
export const taskNumber: JsonSchema = {
  type: 'integer',
  minimum: 1,
  maximum: TASK_NUMBER_MAX,
  description: "The task's number as shown in the list (1, 2, 3…)",
};
export const query: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: TITLE_MAX_LENGTH,
  description: 'Words from the task title, when the person did not give a number',
};
export const title: JsonSchema = { type: 'string', minLength: 1, maxLength: TITLE_MAX_LENGTH };
export const description: JsonSchema = { type: 'string', maxLength: DESCRIPTION_MAX_LENGTH };
export const priority: JsonSchema = { type: 'string', enum: TASK_PRIORITIES };

/** A task as every result names it (TaskView): by number and title, never by internal id. */
export const taskView: JsonSchema = {
  type: 'object',
  properties: {
    number: { type: 'integer', minimum: 1 },
    title: { type: 'string' },
    description: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    priority,
    completed: { type: 'boolean' },
  },
  required: ['number', 'title', 'description', 'priority', 'completed'],
  additionalProperties: false,
};
export const taskViews: JsonSchema = { type: 'array', items: taskView };

/** A result of exactly these fields (`optional` may be left out). */
export function result(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema & { type: 'object' } {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((name) => !optional.includes(name)),
    additionalProperties: false,
  };
}
