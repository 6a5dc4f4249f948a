import { POLICY_DENIED, POLICY_LIMIT_REACHED, type PolicyLimit } from './policy';

/** A call the policy stopped, as the caller (a model, an MCP client) reads it: what the person is told, and the rule behind it. */
export interface PolicyRefusal {
  readonly code: typeof POLICY_DENIED | typeof POLICY_LIMIT_REACHED;
  readonly message: string;
  readonly details: PolicyRefusalDetails;
}

export type PolicyRefusalDetails = {
  readonly rule: string;
  readonly version: number;
  /** A denial's reason, as the admin wrote it. */
  readonly reason?: string;
  readonly max?: number;
  readonly window?: string;
  /** When the limit's window ends, so that another such call may run. */
  readonly retryAfterSeconds?: number;
};

/** A call a rule refused (a `deny`, or an effect the door cannot carry out): the admin's reason, when there is one, and which rule it is. */
export function denied(decision: { readonly rule: string; readonly version: number; readonly reason?: string }): PolicyRefusal {
  const details: PolicyRefusalDetails = {
    rule: decision.rule,
    version: decision.version,
    ...(decision.reason ? { reason: decision.reason } : {}),
  };
  return { code: POLICY_DENIED, message: policyRefusalSentence(POLICY_DENIED, details) ?? '', details };
}

/** A call over a limit: which rule, how many it allows, and when the window ends. */
export function overLimit(version: number, limit: PolicyLimit, retryAfterSeconds: number): PolicyRefusal {
  const details: PolicyRefusalDetails = {
    rule: limit.rule,
    version,
    max: limit.max,
    window: limit.window,
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)),
  };
  return { code: POLICY_LIMIT_REACHED, message: policyRefusalSentence(POLICY_LIMIT_REACHED, details) ?? '', details };
}

/**
 * The sentence for a refusal by the policy, from its details; null when the code is no
 * policy's or the details are not a refusal's (then the failure class's sentence is said).
 * "This is not allowed here: Only admins delete tasks. (Policy rule 'admins-delete'.)"
 * "That has reached its limit: at most 20 a day (policy rule 'delete-cap'). More can run in 3 hours."
 */
export function policyRefusalSentence(code: string, details: Readonly<Record<string, unknown>>): string | null {
  const { rule, reason, max, window, retryAfterSeconds } = details;
  if (typeof rule !== 'string') return null;
  if (code === POLICY_DENIED) {
    return typeof reason === 'string'
      ? `This is not allowed here: ${reason} (Policy rule '${rule}'.)`
      : `This is not allowed here (policy rule '${rule}').`;
  }
  if (code === POLICY_LIMIT_REACHED && typeof max === 'number' && typeof window === 'string') {
    const when = typeof retryAfterSeconds === 'number' ? ` More can run in ${duration(retryAfterSeconds)}.` : '';
    return `That has reached its limit: at most ${max} a ${window} (policy rule '${rule}'). Nothing was done.${when}`;
  }
  return null;
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} seconds`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} minutes`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} hours`;
  return `${Math.round(seconds / 86_400)} days`;
}
