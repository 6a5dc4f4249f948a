import { findInputProblem, type InputProblem, textProblem } from '../../../domain/shared/untrusted-input';

/** What the boundary reads of a request: a Nest route's path parameters, and any route's query and body. */
export interface RequestInput {
  readonly params?: Record<string, unknown>;
  readonly query?: unknown;
  readonly body?: unknown;
}

/**
 * The one input boundary's check, for the global guard (InputBoundaryGuard) and for the routes
 * Nest does not serve itself (the OAuth endpoints, oauthBoundary): NUL bytes and lone
 * surrogates, nesting past the depth limit, prototype keys, repeated query parameters (and
 * form fields, with `formBody`), and, with `maxTextLength`, any string longer than it.
 * @returns the first problem, naming its field, or null.
 */
export function requestInputProblem(req: RequestInput, options: InputLimits = {}): InputProblem | null {
  for (const [name, value] of Object.entries(req.params ?? {})) {
    const problem = typeof value === 'string' ? textProblem(value) : null;
    if (problem) return { path: name, problem };
  }
  const problem = parametersProblem(req.query) ?? (options.formBody ? parametersProblem(req.body) : bodyProblem(req.body));
  if (problem || options.maxTextLength === undefined) return problem;
  return oversizeText(req.query, '', options.maxTextLength) ?? oversizeText(req.body, 'body', options.maxTextLength);
}

export interface InputLimits {
  /** Refuse any string (or field name) longer than this. */
  readonly maxTextLength?: number;
  /** The body is a form (`application/x-www-form-urlencoded`): its fields are parameters, as the query's are. */
  readonly formBody?: boolean;
}

/** A query's or a form's parameters: each given once (RFC 6749 §3.1, §3.2 require it of OAuth's). */
function parametersProblem(parameters: unknown): InputProblem | null {
  for (const [name, value] of Object.entries((parameters ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(value)) return { path: name, problem: 'is given more than once' };
    const problem = findInputProblem({ [name]: value }, '');
    if (problem) return problem;
  }
  return null;
}

function bodyProblem(body: unknown): InputProblem | null {
  if (typeof body === 'string') {
    const problem = textProblem(body);
    return problem ? { path: 'body', problem } : null;
  }
  const problem = findInputProblem(body, '');
  return problem && { path: problem.path || 'body', problem: problem.problem };
}

/**
 * The first string longer than `max`, named as findInputProblem names fields. Runs after
 * findInputProblem, so the depth is already bounded.
 */
function oversizeText(value: unknown, whole: string, max: number): InputProblem | null {
  const stack: { value: unknown; path: string }[] = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.length > max) return { path: path || whole, problem: `is longer than ${max} characters` };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    const entries: [string, unknown][] = Array.isArray(current)
      ? current.map((item, index) => [`${path}[${index}]`, item])
      : Object.entries(current).map(([key, item]) => [path === '' ? key : `${path}.${key}`, item]);
    const longKey = Array.isArray(current) ? undefined : Object.keys(current).find((key) => key.length > max);
    if (longKey !== undefined) return { path: path || whole, problem: `has a field name longer than ${max} characters` };
    for (let index = entries.length - 1; index >= 0; index--) stack.push({ path: entries[index][0], value: entries[index][1] });
  }
  return null;
}
