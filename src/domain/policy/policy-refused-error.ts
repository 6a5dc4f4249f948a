import { DomainValidationError } from '../shared/domain-error';
import { problemInWords, type PolicyProblem } from './policy-document';

/**
 * A policy an admin sent that cannot be used (readPolicy's problems, or emails that are no
 * account's): refused whole, with every problem, so that one answer shows all there is to
 * fix. Whoever takes a policy from outside (storing one, a dry run of one) throws this, and
 * the HTTP error filter is the one place that turns it into a 400 that lists the problems.
 */
export class PolicyRefusedError extends DomainValidationError {
  readonly code = 'POLICY.INVALID' as const;

  constructor(readonly problems: readonly PolicyProblem[]) {
    super('rules', refusalMessage(problems));
  }
}

/** "The policy has 2 problems; the first: rule 3 ('delete-cap'): rules[3].limit.max must be …". */
function refusalMessage(problems: readonly PolicyProblem[]): string {
  if (problems.length === 0) return 'The policy cannot be used';
  const first = problemInWords(problems[0]);
  return problems.length === 1 ? `The policy has a problem: ${first}` : `The policy has ${problems.length} problems; the first: ${first}`;
}
