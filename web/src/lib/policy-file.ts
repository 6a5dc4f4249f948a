/**
 * The policy file the admin edits: YAML (JSON is YAML too) holding `rules`, as
 * `GET /admin/policy?format=yaml` exports it. Read here only as far as the server's reader
 * would take it (no aliases, no repeated keys); what the rules say is the server's to judge.
 */
import { parse, stringify, YAMLParseError } from 'yaml';
import type { PolicyRules } from '../api';

/** The rules as the file the editor shows. */
export function policyFileText(rules: PolicyRules): string {
  return stringify({ rules });
}

export type PolicyFileRead = { ok: true; rules: PolicyRules; reason: string | null } | { ok: false; message: string };

/** The file's rules, and its `reason` when it holds one (a file prepared for PUT); or why it cannot be read. */
export function readPolicyFile(text: string): PolicyFileRead {
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: 0, uniqueKeys: true, prettyErrors: true });
  } catch (error) {
    const at = error instanceof YAMLParseError ? error.linePos?.[0] : undefined;
    const reason = (error instanceof Error ? error.message : String(error)).split(' at line ')[0].replace(/\s+/g, ' ').trim();
    return { ok: false, message: `The file is not valid YAML${at ? ` at line ${at.line}, column ${at.col}` : ''}: ${reason}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !('rules' in value)) {
    return { ok: false, message: 'The file must hold `rules:`, the list of rules (as the policy in force shows it).' };
  }
  const others = Object.keys(value).filter((key) => key !== 'rules' && key !== 'reason');
  if (others.length > 0) return { ok: false, message: `The file holds only \`rules\` and \`reason\`; remove ${others.join(', ')}.` };
  const { rules, reason } = value as { rules: PolicyRules; reason?: unknown };
  return { ok: true, rules, reason: typeof reason === 'string' ? reason : null };
}
