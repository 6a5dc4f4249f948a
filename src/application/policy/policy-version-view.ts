import { DomainError } from '../../domain/shared/domain-error';
import { DEFAULT_POLICY_VERSION } from '../../domain/policy/default-policy';
import type { PolicyDocument } from '../../domain/policy/policy';
import type { PolicyBasis } from './policy-provider';
import type { PolicyPeople, StoredPolicyVersion } from './ports/policy-store.port';

/** A version of the policy as the admin API shows it: a stored one, or the built-in one (version 0), which has no author. */
export interface PolicyVersionView {
  readonly version: number;
  /** True for version 0, the rules the code holds (in force until an admin stores a policy). */
  readonly builtIn: boolean;
  readonly document: PolicyDocument;
  /** The account each email the rules name was when the version was stored; none for version 0. */
  readonly people: PolicyPeople;
  readonly authorId: string | null;
  readonly authorEmail: string | null;
  readonly reason: string | null;
  readonly createdAt: Date | null;
}

export function storedView(stored: StoredPolicyVersion): PolicyVersionView {
  return { ...stored, builtIn: false };
}

export function builtInView(basis: PolicyBasis): PolicyVersionView {
  return {
    version: DEFAULT_POLICY_VERSION,
    builtIn: true,
    document: basis.builtIn,
    people: {},
    authorId: null,
    authorEmail: null,
    reason: null,
    createdAt: null,
  };
}

export class PolicyVersionNotFoundError extends DomainError {
  readonly code = 'POLICY.VERSION_NOT_FOUND' as const;
  readonly kind = 'not_found' as const;

  constructor(version: number) {
    super(`There is no version ${version} of the policy`);
  }
}
