import { Injectable } from '@nestjs/common';
import { CompiledPolicy } from '../../domain/policy/compiled-policy';
import { actionTargets } from '../../domain/outreach/actions';
import { enforcement, type PolicyDoor } from '../../domain/policy/enforcement';
import { type CallTargets, POLICY_EFFECTS, type PolicyCall, type PolicyEffect, type PolicySource } from '../../domain/policy/policy';
import { SimulatedLimits } from '../../domain/policy/simulated-limits';
import { AuditReader, type RecordedToolCall } from '../audit/ports/audit-reader.port';
import { PolicyBasis, PolicyProvider } from './policy-provider';
import { PolicyAccounts } from './ports/policy-accounts.port';

/** Recorded calls a dry run reads unless told otherwise, and the most it reads. */
export const DRY_RUN_CALLS_DEFAULT = 1000;
export const DRY_RUN_CALLS_MAX = 10_000;
/** Example calls a dry run lists for each kind of change. */
export const DRY_RUN_EXAMPLES_MAX = 20;
/** The version the candidate is compiled under: no stored version is negative, so no counter or verdict can be taken for its. */
export const DRY_RUN_VERSION = -1;

export interface DryRunPolicyInput {
  /** The whole candidate policy, `{rules}`, as it came: read here as storing it would read it. */
  readonly candidate: unknown;
  /** How many recorded calls, the newest: 1 to DRY_RUN_CALLS_MAX. */
  readonly limit: number;
}

/** What a policy said of a call: the effect (`limit` when one of its limits stopped it) and the rule; null when no rule matched. */
export interface DryRunVerdict {
  readonly effect: PolicyEffect;
  readonly rule: string | null;
}

/** A call that would be decided differently, as the report shows it: never its arguments (they may hold personal data). */
export interface DryRunExample {
  readonly seq: number;
  readonly at: Date;
  readonly source: PolicySource;
  readonly tool: string;
  readonly actorId: string;
  readonly actorEmail: string | null;
  readonly now: DryRunVerdict;
  readonly candidate: DryRunVerdict;
}

/** The calls that go from one effect to another, decided in the candidate by one rule. */
export interface DryRunChange {
  readonly from: PolicyEffect;
  readonly to: PolicyEffect;
  /** The candidate's deciding rule (the limit's rule when a limit stopped the call); null when no rule matched (allowed). */
  readonly rule: string | null;
  readonly calls: number;
  /** The newest of them, newest first, at most DRY_RUN_EXAMPLES_MAX. */
  readonly examples: readonly DryRunExample[];
}

export interface DryRunReport {
  /** The version of the policy in force the calls were compared with. */
  readonly versionInForce: number;
  /** Recorded calls read: `limit`, or fewer when the log holds fewer. */
  readonly calls: number;
  readonly limit: number;
  /** The oldest and newest call's time; null when there was none. */
  readonly from: Date | null;
  readonly to: Date | null;
  /** Calls whose effect differs between the policy in force and the candidate. */
  readonly changed: number;
  /** How many of the calls each policy gives each effect. */
  readonly effects: { readonly now: Readonly<Record<PolicyEffect, number>>; readonly candidate: Readonly<Record<PolicyEffect, number>> };
  /** By how many calls, most first. */
  readonly changes: readonly DryRunChange[];
}

/**
 * What a candidate policy would have decided differently from the policy in force, over the
 * newest recorded tool calls (1 000 unless told; docs/policies.md, "Dry run"). The candidate is
 * read as storing it would read it (every problem refused at once, emails resolved to
 * accounts), then each call is decided twice, at its recorded time, for time-of-day rules.
 *
 * Limits are replayed in memory (SimulatedLimits), each policy on counters of its own that
 * start empty at the oldest call: calls older than the sample count toward no window, and the
 * live counters are neither read nor touched. A call counts against its limits where the
 * executor would count it: when its decision lets it run (allowed, or asked of the person and
 * run on their yes; never a dry run that put it to them). Every row that is a call's pending
 * or only row is a call, as the log records them: a delete over MCP that the server put to the
 * person is two (its dry run and its refusal). Roles are the actors' roles now, read with the calls.
 *
 * It writes nothing at all, not even an admin-read row (docs/policies.md):
 * unlike the audit log's pages it shows no call's arguments or result, only who called which
 * tool when, and what each policy would decide.
 */
@Injectable()
export class DryRunPolicyUseCase {
  constructor(
    private readonly basis: PolicyBasis,
    private readonly policies: PolicyProvider,
    private readonly accounts: PolicyAccounts,
    private readonly reader: AuditReader,
  ) {}

  async execute(input: DryRunPolicyInput): Promise<DryRunReport> {
    const candidate = await this.compile(input.candidate);
    const inForce = this.policies.current();
    return replay(inForce, candidate, await this.reader.recentToolCalls(input.limit), input.limit);
  }

  /** The candidate as it would be stored: every problem of it refused at once. */
  private async compile(input: unknown): Promise<CompiledPolicy> {
    const { document, accounts } = await this.basis.read(input, this.accounts);
    return new CompiledPolicy(DRY_RUN_VERSION, document, this.basis.catalogue, accounts);
  }
}

/** Decides every call with both policies in time order, limits counted as they go; pure, for the report. */
export function replay(
  inForce: CompiledPolicy,
  candidate: CompiledPolicy,
  newestFirst: readonly RecordedToolCall[],
  limit: number,
): DryRunReport {
  // Limits count in time order; seq breaks ties between calls of the same instant.
  const calls = [...newestFirst].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.seq - b.seq);
  const now = new Replayed(inForce);
  const next = new Replayed(candidate);
  const effects = { now: noEffects(), candidate: noEffects() };
  const changes = new Map<
    string,
    { from: PolicyEffect; to: PolicyEffect; rule: string | null; calls: number; examples: DryRunExample[] }
  >();
  let changed = 0;
  for (const call of calls) {
    const asked = policyCall(call);
    const before = now.decide(asked, call);
    const after = next.decide(asked, call);
    effects.now[before.effect] += 1;
    effects.candidate[after.effect] += 1;
    if (before.effect === after.effect) continue;
    changed += 1;
    const key = JSON.stringify([before.effect, after.effect, after.rule]);
    let change = changes.get(key);
    if (!change) changes.set(key, (change = { from: before.effect, to: after.effect, rule: after.rule, calls: 0, examples: [] }));
    change.calls += 1;
    // Oldest first here, so the last ones kept are the newest.
    change.examples.push(exampleOf(call, before, after));
    if (change.examples.length > DRY_RUN_EXAMPLES_MAX) change.examples.shift();
  }
  return {
    versionInForce: inForce.version,
    calls: calls.length,
    limit,
    from: calls.length > 0 ? calls[0].createdAt : null,
    to: calls.length > 0 ? calls[calls.length - 1].createdAt : null,
    changed,
    effects,
    changes: [...changes.values()]
      .map((change) => ({ ...change, examples: change.examples.reverse() }))
      .sort((a, b) => b.calls - a.calls || order(a.from, b.from) || order(a.to, b.to) || order(a.rule ?? '', b.rule ?? '')),
  };
}

/** One policy replayed over the calls: its decisions, and its limits counted on counters of its own. */
class Replayed {
  private readonly limits = new SimulatedLimits();

  constructor(private readonly policy: CompiledPolicy) {}

  decide(call: PolicyCall, recorded: RecordedToolCall): DryRunVerdict {
    const decision = this.policy.decide(call);
    const enforced = enforcement(decision, recordedDoor(recorded));
    switch (enforced.kind) {
      case 'run': {
        // A preview (the question put to the person) counts nothing; what ran counts.
        const reached = enforced.preview === null ? this.limits.take(enforced.obligations.limits, call.at) : null;
        if (reached) return { effect: 'limit', rule: reached.rule };
        break;
      }
      case 'refuse':
      case 'ask-person':
      case 'hold-for-reviewer':
        // Nothing ran: nothing counts.
        break;
      default: {
        const unknown: never = enforced;
        return unknown;
      }
    }
    return { effect: decision.effect, rule: decision.rule };
  }
}

/**
 * The door a recorded call came in by, as far as its row tells (ExecuteToolCallUseCase counts
 * what runs): a row of a dry run (confirmation_required, or confirmation_requested on older
 * rows) is a preview, the question put to the person; a refused row is a call that could not
 * ask them (asked of an MCP client that cannot put the question: it did not run); any other is
 * a call that ran, on the person's yes where a rule asked them. A reviewer's question holds the
 * call (nothing counted when it was drafted).
 */
function recordedDoor(recorded: RecordedToolCall): PolicyDoor {
  const { status } = recorded;
  const preview = status === 'confirmation_required' || status === 'confirmation_requested';
  return { person: preview ? 'previews' : status === 'rejected' ? 'asks' : 'agreed', reviewer: 'holds' };
}

/** The call as the policy sees it, at its recorded time, acting on what it was recorded to act on (recordedTargets). */
function policyCall(call: RecordedToolCall): PolicyCall {
  return {
    tool: call.tool,
    source: call.source,
    userId: call.actorId,
    ...(call.actorRole ? { role: call.actorRole } : {}),
    targets: recordedTargets(call),
    at: call.createdAt,
  };
}

/**
 * What a recorded call acted on, from what its row recorded of it: the number of things the
 * policy read when it was decided (PolicyVerdict.items, resolved as the call ran: a scope's
 * tasks counted); an outreach action's recipient from its arguments, which are what it sent.
 * A row written before the count was recorded counts the tasks its arguments name (`tasks`,
 * `numbers`), else 1: a `scope` on such a row is counted as it was decided then, as one.
 * Arguments that are no object (a refused call's text) name nothing.
 */
export function recordedTargets(call: RecordedToolCall): CallTargets {
  const raw = call.arguments;
  const args = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const targets = call.source === 'outreach' ? actionTargets(call.tool, args) : { items: namedTasks(args), recipient: null };
  return call.items === null ? targets : { ...targets, items: call.items };
}

function namedTasks(args: Readonly<Record<string, unknown>>): number {
  if (Array.isArray(args.tasks)) return new Set(args.tasks.map((task: unknown) => (task as { number?: unknown } | null)?.number)).size;
  if (Array.isArray(args.numbers)) return new Set(args.numbers).size;
  return 1;
}

function exampleOf(call: RecordedToolCall, now: DryRunVerdict, candidate: DryRunVerdict): DryRunExample {
  return {
    seq: call.seq,
    at: call.createdAt,
    source: call.source,
    tool: call.tool,
    actorId: call.actorId,
    actorEmail: call.actorEmail,
    now,
    candidate,
  };
}

function noEffects(): Record<PolicyEffect, number> {
  return Object.fromEntries(POLICY_EFFECTS.map((effect) => [effect, 0])) as Record<PolicyEffect, number>;
}

function order(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
