/** Keywords Gemini's function declarations accept; everything else is dropped. */
const KEPT = new Set([
  'type',
  'description',
  'enum',
  'properties',
  'required',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'nullable',
  'anyOf',
  'format',
]);
/** String formats Gemini understands; others are dropped rather than rejected. */
const STRING_FORMATS = new Set(['enum', 'date-time']);

type Schema = Record<string, unknown>;

/**
 * A JSON Schema rewritten into what Gemini accepts: `$ref`s inlined from `$defs` /
 * `definitions` (cycles cut), `additionalProperties`, `$schema`, `default` and other
 * unsupported keywords removed, unsupported formats dropped, `const` turned into a
 * one-value enum. Applies to our tools and to any tool an MCP server describes.
 */
export function toGeminiSchema(schema: unknown): Schema {
  const root = (schema ?? {}) as Schema;
  const definitions = { ...((root.definitions as Schema | undefined) ?? {}), ...((root.$defs as Schema | undefined) ?? {}) };
  return normalize(root, definitions, new Set());
}

function normalize(node: unknown, definitions: Schema, resolving: Set<string>): Schema {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return {};
  let schema = node as Schema;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace(/^#\/(\$defs|definitions)\//, '');
    const target = definitions[name];
    if (target === undefined || resolving.has(name)) return { type: 'object', description: schema.description };
    schema = { ...(target as Schema), ...(schema.description ? { description: schema.description } : {}) };
    resolving = new Set([...resolving, name]);
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'const') out.enum = [value];
    if (!KEPT.has(key)) continue;
    if (key === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, child]) => [name, normalize(child, definitions, resolving)]),
      );
    } else if (key === 'items') {
      out.items = normalize(value, definitions, resolving);
    } else if (key === 'anyOf') {
      out.anyOf = (value as unknown[]).map((child) => normalize(child, definitions, resolving));
    } else if (key === 'format') {
      if (schema.type !== 'string' || STRING_FORMATS.has(value as string)) out.format = value;
    } else {
      out[key] = value;
    }
  }
  if (Array.isArray(out.enum)) out.enum = (out.enum as unknown[]).map(String);
  return out;
}
