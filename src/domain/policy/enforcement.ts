import type { PolicyDecision, PolicyObligations, ReviewerRule } from './policy';
import { denied, type PolicyRefusal } from './policy-refusal';

/**
 * A door a call comes in by, as the policy's enforcement sees it: what it can do with a call
 * besides running or refusing it. Each door says it once: the tools server
 * (ExecuteToolCallUseCase, by the call's mode), the REST task routes (PolicyGate.admit),
 * outreach (OutreachActionRunner.act), the chat turn (TurnAdmission) and the dry run of a
 * policy over recorded calls (DryRunPolicyUseCase).
 */
export interface PolicyDoor {
  /**
   * Where the person stands to this call:
   * - `asks`: the door can put it to them, its own way (the chat turn asks in the chat; a tool
   *   call in `run` mode answers CONFIRMATION_REQUIRED, saying where they can say yes);
   * - `previews`: the call is the question itself (a dry run, which changes nothing);
   * - `agreed`: the call is their yes (a confirmed call; a REST request, their own; a turn they said yes to);
   * - `nobody`: no one is at the call (outreach).
   */
  readonly person: 'asks' | 'previews' | 'agreed' | 'nobody';
  /** `holds`: the door can hold the call for a reviewer (outreach's review queue); `agreed`: the call is a reviewer's yes (an approved draft); `nobody`. */
  readonly reviewer: 'holds' | 'agreed' | 'nobody';
}

/**
 * What a door does with a call the policy decided. `run` takes its obligations first (a limit
 * full refuses it); a preview only looks at them (`preview`: what the policy would do with the
 * call itself: put it to the person, or run it unasked); null for a call that runs.
 */
export type Enforcement =
  | { readonly kind: 'run'; readonly obligations: PolicyObligations; readonly preview: 'asks' | 'runs' | null }
  | { readonly kind: 'refuse'; readonly refusal: PolicyRefusal }
  | { readonly kind: 'ask-person'; readonly rule: string; readonly obligations: PolicyObligations }
  | {
      readonly kind: 'hold-for-reviewer';
      readonly rule: string;
      readonly reviewer?: ReviewerRule;
      readonly obligations: PolicyObligations;
    };

/** The kinds a door can be given: never a question at a door that cannot ask, nor a hold where nothing holds. */
type KindAt<D extends PolicyDoor> =
  'run' | 'refuse' | ('asks' extends D['person'] ? 'ask-person' : never) | ('holds' extends D['reviewer'] ? 'hold-for-reviewer' : never);
export type EnforcementAt<D extends PolicyDoor> = Extract<Enforcement, { readonly kind: KindAt<D> }>;

/**
 * The one reading of a decision's effect, for every door (docs/policies.md, "What it does"):
 * `allow` runs; `deny` is refused with the rule's reason; `ask-person` is asked where the door
 * can ask, runs where the call is the person's yes or is a preview of the question, and is
 * refused where nobody can be asked; `ask-reviewer` is held where a review queue holds it, runs
 * on the reviewer's yes, and is refused elsewhere (a policy cannot name a reviewer there:
 * readPolicy). Each door handles the result with one exhaustive switch.
 */
export function enforcement<D extends PolicyDoor>(decision: PolicyDecision, door: D): EnforcementAt<D> {
  return enforce(decision, door) as EnforcementAt<D>;
}

function enforce(decision: PolicyDecision, door: PolicyDoor): Enforcement {
  const obligations = obligationsOf(decision);
  const run = (preview: 'asks' | 'runs'): Enforcement => ({
    kind: 'run',
    obligations,
    preview: door.person === 'previews' ? preview : null,
  });
  switch (decision.effect) {
    case 'allow':
      return run('runs');
    case 'deny':
      return { kind: 'refuse', refusal: denied(decision) };
    case 'ask-person':
      switch (door.person) {
        case 'asks':
          return { kind: 'ask-person', rule: decision.rule, obligations };
        case 'previews':
        case 'agreed':
          return run('asks');
        case 'nobody':
          return { kind: 'refuse', refusal: denied(decision) };
        default:
          return unknownDoor(door.person);
      }
    case 'ask-reviewer':
      switch (door.reviewer) {
        case 'holds':
          return { kind: 'hold-for-reviewer', rule: decision.rule, ...withReviewer(decision.reviewer), obligations };
        case 'agreed':
          return run('runs');
        case 'nobody':
          return { kind: 'refuse', refusal: denied(decision) };
        default:
          return unknownDoor(door.reviewer);
      }
    default: {
      const unknown: never = decision;
      return unknown;
    }
  }
}

/** What the decision obliges a door to do when the call runs: one field per obligation (PolicyObligations). */
function obligationsOf(decision: PolicyDecision): PolicyObligations {
  return { limits: decision.limits };
}

function withReviewer(reviewer: ReviewerRule | undefined): { readonly reviewer?: ReviewerRule } {
  return reviewer ? { reviewer } : {};
}

function unknownDoor(capability: never): never {
  return capability;
}
