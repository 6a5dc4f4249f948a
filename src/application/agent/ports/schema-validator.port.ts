import type { SchemaViolation } from '../../../domain/agent/json-schema';
import type { SchemaCheck } from '../../../domain/agent/tool-call-validation';
import type { JsonSchema } from '../../../domain/agent/tools';

/**
 * A complete JSON Schema implementation, for tool arguments. Each schema is compiled once
 * (`compile`, at start for the toolbox's tools; on first use for one seen later) and kept for
 * the same schema object; a schema with a keyword or format it does not know is refused
 * with an exception, never half-checked.
 */
export abstract class SchemaValidator implements SchemaCheck {
  /** @throws when the schema is not valid in its dialect or uses an unknown keyword or format. */
  abstract compile(schema: JsonSchema): void;

  /**
   * Every way `value` breaks `schema`, at most one per path, each naming its path under
   * `arguments` (`arguments.numbers[1]`) and its rule in words the model can act on.
   */
  abstract violations(schema: JsonSchema, value: unknown): readonly SchemaViolation[];
}
