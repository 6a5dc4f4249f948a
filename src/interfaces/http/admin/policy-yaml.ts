import { parse, stringify, YAMLParseError } from 'yaml';
import type { PolicyVersionView } from '../../../application/policy/policy-version-view';
import { describeInputProblem, findInputProblem } from '../../../domain/shared/untrusted-input';
import { ApiError } from '../shared/api-error';

/**
 * A policy as a file (application/yaml): what `GET /admin/policy?format=yaml` exports and
 * `PUT /admin/policy` imports. The file holds `rules`, exactly the JSON's; to store it, add
 * `reason: why` beside them (the body a PUT takes is the same object in either format). The
 * header comments say which version it is and which account each email named stood for, and
 * are ignored on the way back in.
 */
export function policyToYaml(view: PolicyVersionView): string {
  const about = view.builtIn
    ? `# Bridle's built-in policy (version 0), in force until an admin stores one.`
    : `# Bridle policy version ${view.version}, stored ${view.createdAt?.toISOString() ?? ''} by ${view.authorEmail ?? ''}: ${oneLine(view.reason ?? '')}`;
  const how = '# To store it as a new version, add `reason: why` and PUT it to /admin/policy with Content-Type: application/yaml.';
  return `${about}\n${peopleLines(view).join('')}${how}\n${stringify({ rules: view.document.rules })}`;
}

/**
 * The accounts the rules' emails stand for in this version, one comment line each: the rules
 * keep the emails the admin wrote. Stored again, the file's emails are resolved again, as of then.
 */
function peopleLines(view: PolicyVersionView): string[] {
  const people = Object.entries(view.people).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (people.length === 0) return [];
  return [
    '# The emails its rules name are the accounts they were when it was stored:\n',
    ...people.map(([email, id]) => `#   ${oneLine(email)} = account ${id}\n`),
  ];
}

/**
 * A PUT's YAML body as the object JSON would have given: plain YAML only (no aliases, which
 * could expand a small file into a huge one; no repeated keys), then the same checks the input
 * boundary runs on a JSON body (depth, prototype keys, NUL and lone surrogates).
 * @throws ApiError 400 naming the line and column, or the field.
 */
export function readPolicyYaml(text: string): unknown {
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: 0, uniqueKeys: true, prettyErrors: true });
  } catch (error) {
    // Whatever the parser throws is about the text (an alias it will not resolve throws a plain Error).
    const at = error instanceof YAMLParseError ? error.linePos?.[0] : undefined;
    const where = at ? ` at line ${at.line}, column ${at.col}` : '';
    // The pretty message goes on with the line and a caret under the column: its first sentence is the reason.
    const reason = oneLine((error instanceof Error ? error.message : String(error)).split(' at line ')[0]);
    throw new ApiError(400, 'VALIDATION.FAILED', `body is not valid YAML${where}: ${reason}`);
  }
  const problem = findInputProblem(value, '');
  if (problem)
    throw new ApiError(400, 'VALIDATION.FAILED', describeInputProblem({ path: problem.path || 'body', problem: problem.problem }));
  return value;
}

/** A reason or a parser's message on one comment line: a line break in it must not end the comment. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
