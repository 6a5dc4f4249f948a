/*
 * The approval policy of a campaign (review before send). Kept apart from review.ts, whose
 * checks use the planning rules, so that campaign.ts can use it without a cycle.
 */
/**
 * Review before send: whether a campaign's channel actions wait for a person.
 * `none`: they run as soon as they are checked; `first_n`: the first N of each kind wait,
 * then that kind runs alone; `all`: every one waits.
 */
export const APPROVAL_MODES = ['none', 'first_n', 'all'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export const DEFAULT_APPROVAL_FIRST_N = 3;
export const APPROVAL_FIRST_N_MAX = 1000;

export interface ApprovalPolicy {
  readonly mode: ApprovalMode;
  /** How many approvals of each kind `first_n` asks for. */
  readonly firstN: number;
}

export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = { mode: 'none', firstN: DEFAULT_APPROVAL_FIRST_N };

/**
 * Whether the next channel action of a kind waits for a person.
 * @param approvedSoFarOfKind drafts of that kind the campaign's owner approved (sent or about to be).
 */
export function needsReview(policy: ApprovalPolicy, approvedSoFarOfKind: number): boolean {
  switch (policy.mode) {
    case 'none':
      return false;
    case 'all':
      return true;
    case 'first_n':
      return approvedSoFarOfKind < policy.firstN;
  }
}

/** A problem with a request's approval fields, named by field. */
export interface ApprovalProblem {
  readonly field: 'approvalMode' | 'approvalFirstN';
  readonly message: string;
}

/** A campaign's approval policy from a request; a field not given keeps `base`'s. */
export function approvalPolicyOf(
  changes: { mode?: unknown; firstN?: unknown },
  base: ApprovalPolicy,
): { readonly ok: true; readonly value: ApprovalPolicy } | { readonly ok: false; readonly problem: ApprovalProblem } {
  const mode = changes.mode === undefined ? base.mode : changes.mode;
  if (typeof mode !== 'string' || !(APPROVAL_MODES as readonly string[]).includes(mode)) {
    return { ok: false, problem: { field: 'approvalMode', message: `approvalMode must be one of ${APPROVAL_MODES.join(', ')}` } };
  }
  const firstN = changes.firstN === undefined ? base.firstN : changes.firstN;
  if (typeof firstN !== 'number' || !Number.isInteger(firstN) || firstN < 1 || firstN > APPROVAL_FIRST_N_MAX) {
    return {
      ok: false,
      problem: { field: 'approvalFirstN', message: `approvalFirstN must be a whole number from 1 to ${APPROVAL_FIRST_N_MAX}` },
    };
  }
  return { ok: true, value: { mode: mode as ApprovalMode, firstN } };
}
