import type { JsonSchema, SchemaCheck, SchemaViolation } from '../../../domain/agent/tools';

/**
 * A complete JSON Schema implementation, for tool arguments and the outreach planner's
 * action contracts. Each schema is compiled once (`compile`, at start for the toolbox's tools
 * and the action contracts; on first use for one seen later) and kept for the same schema
 * object; a schema with a keyword or format it does not know is refused with an exception,
 * never half-checked.
 */
export abstract class SchemaValidator implements SchemaCheck {
  /** @throws when the schema is not valid in its dialect or uses an unknown keyword or format. */
  abstract compile(schema: JsonSchema): void;

  /**
   * Every way `value` breaks `schema`, at most one per path, each naming its path under
   * `root` (`arguments` unless told: `arguments.numbers[1]`, `args.fields[0]`) and its rule
   * in words the model can act on.
   */
  abstract violations(schema: JsonSchema, value: unknown, root?: string): readonly SchemaViolation[];
}
