import { canonicalJson } from '../agent/tool-call-validation';
import { BUILT_IN_ACTIONS, type ActionCatalog } from './action-catalog';
import { actionTarget, isBuiltIn, type Proposal } from './actions';
import { emailKey } from '../shared/email-address';
import { canonicalProfileUrl } from './lead';
import type { CampaignBrief, MessageTemplates } from './brief';
import { smuggledAddresses, untrustedTexts, type UntrustedText } from './untrusted-text';
import type { CampaignStatus } from './campaign';
import { type ActionKind, type OutreachTaskStatus, type OutreachTaskType } from './outreach-task';
import { describeBlock, type QuotaBlock, quotaBlock, type QuotaScope, type QuotaState } from './quota';

/** One earlier task of the campaign, as the planner is shown it (the last 3 finished). */
export interface RecentResult {
  readonly type: OutreachTaskType;
  readonly leadName: string;
  readonly status: OutreachTaskStatus;
  readonly durationMs: number;
}

interface CampaignContext {
  readonly id: string;
  readonly name: string;
  readonly status: CampaignStatus;
}

/** Everything a cycle knows, reloaded from the database every cycle. */
export type CycleContext =
  | {
      readonly kind: 'task';
      readonly campaign: CampaignContext;
      readonly task: {
        readonly id: string;
        readonly type: OutreachTaskType;
        readonly status: OutreachTaskStatus;
        readonly attempts: number;
        readonly lastError: string | null;
      };
      readonly lead: {
        readonly name: string;
        readonly linkedinUrl: string;
        readonly email: string | null;
        /** What the profile look-up found, once it has run. */
        readonly profile: Readonly<Record<string, unknown>> | null;
      };
      readonly quota: QuotaState;
      readonly recent: readonly RecentResult[];
      /** The lead's email and profile URL that are on the owner's do-not-contact list. */
      readonly doNotContact: readonly string[];
      /** Secret names `refresh_session` may ask for. */
      readonly secretNames: readonly string[];
      /** The campaign's brief and message templates (none when not given: a draft review does not read them). */
      readonly brief?: CampaignBrief;
      readonly templates?: MessageTemplates;
    }
  | {
      /** No task is left: the only sensible action is completing the campaign. */
      readonly kind: 'wrap_up';
      readonly campaign: CampaignContext;
      readonly openTasks: number;
      readonly finishedTasks: number;
      readonly quota: QuotaState;
      readonly recent: readonly RecentResult[];
    };

/** A task cycle's context. */
export type TaskContext = Extract<CycleContext, { kind: 'task' }>;

export type ContextCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: 'INVALID_CONTEXT'; readonly problems: readonly string[] }
  | { readonly ok: false; readonly code: 'DO_NOT_CONTACT'; readonly problems: readonly string[] }
  | {
      readonly ok: false;
      readonly code: 'QUOTA_EXCEEDED';
      readonly problems: readonly string[];
      readonly kind: ActionKind;
      readonly scope: QuotaScope;
      /** The limit that binds, and when its next slot frees: the task waits until then. */
      readonly block: QuotaBlock;
    };

/** Input validation before any model call: what must be known, and allowed (quotas as of `now`). */
export function checkContext(context: CycleContext, now: Date, catalog: ActionCatalog = BUILT_IN_ACTIONS): ContextCheck {
  const problems = contextProblems(context);
  if (problems.length) return { ok: false, code: 'INVALID_CONTEXT', problems };
  if (context.kind === 'wrap_up') return { ok: true };
  if (context.doNotContact.length) {
    return { ok: false, code: 'DO_NOT_CONTACT', problems: [`${context.doNotContact.join(' and ')} is on the do-not-contact list`] };
  }
  return quotaCheck(context, now, catalog) ?? { ok: true };
}

/** What the cycle's context lacks for its work (INVALID_CONTEXT): none when it is complete. */
export function contextProblems(context: CycleContext): string[] {
  const problems: string[] = [];
  if (!context.campaign.name) problems.push('the campaign name is missing');
  if (context.campaign.status !== 'active') problems.push(`the campaign is ${context.campaign.status}, not active`);
  if (context.kind === 'wrap_up') {
    if (context.openTasks > 0) problems.push(`${context.openTasks} tasks are still open`);
    return problems;
  }
  const { task, lead } = context;
  if (!task.id) problems.push('the task id is missing');
  if (!task.type) problems.push('the task type is missing');
  if (!lead.linkedinUrl) problems.push("the lead's LinkedIn URL is missing");
  if (task.status !== 'Pending' && task.status !== 'InProgress') problems.push(`the task is ${task.status}`);
  if (task.type === 'SendEmail' && !lead.email) problems.push('the lead has no email address');
  return problems;
}

/** The limit that stops the task's kind of action now (QUOTA_EXCEEDED), or null while every limit has room. */
export function quotaCheck(
  context: TaskContext,
  now: Date,
  catalog: ActionCatalog = BUILT_IN_ACTIONS,
): Extract<ContextCheck, { code: 'QUOTA_EXCEEDED' }> | null {
  const { kind } = catalog.taskAction(context.task.type);
  const block = quotaBlock(context.quota, kind, now);
  return block ? { ok: false, code: 'QUOTA_EXCEEDED', kind, scope: block.scope, block, problems: [describeBlock(block)] } : null;
}

/** Actions a cycle may take besides the one its task is done by. */
const ALWAYS_ALLOWED: readonly string[] = ['wait_cooldown', 'refresh_session'];

/** The actions offered to the planner for this context: the task type's own (from the catalog), wait and refresh. */
export function availableActions(context: CycleContext, catalog: ActionCatalog = BUILT_IN_ACTIONS): string[] {
  return context.kind === 'wrap_up' ? ['complete_campaign'] : [catalog.taskAction(context.task.type).action, ...ALWAYS_ALLOWED];
}

/**
 * Whether a well-formed proposal fits this cycle: the task's own action on the task's own
 * lead, never a do-not-contact target, never completing a campaign with work left. A task
 * cycle always reads untrusted text (the lead's name at least; see untrusted-text.ts), so its
 * action may target only the lead's own recorded profile URL and email, and its message may
 * not repeat another address found in that text; each refusal names the mismatch.
 */
export function fitProblems(proposal: Proposal, context: CycleContext, catalog: ActionCatalog = BUILT_IN_ACTIONS): string[] {
  const allowed = availableActions(context, catalog);
  if (!allowed.includes(proposal.action)) {
    if (proposal.action === 'complete_campaign') return ['action complete_campaign is accepted only when no task is left'];
    const misfit = `action ${proposal.action} does not fit this cycle: expected one of ${allowed.join(', ')}`;
    const foreign = context.kind === 'task' ? foreignTarget(proposal, context) : null;
    return foreign ? [misfit, foreign] : [misfit];
  }
  // An action a channel added is checked by its contract alone: it names no target the cycle knows.
  if (!isBuiltIn(proposal)) return [];
  if (context.kind === 'wrap_up') {
    return proposal.action === 'complete_campaign' && proposal.args.campaignId !== context.campaign.id
      ? [`args.campaignId must be this campaign, ${context.campaign.id}`]
      : [];
  }
  const target = actionTarget(proposal);
  const listed = proposal.action === 'send_email' ? emailKey(target) : target;
  if (listed !== null && context.doNotContact.includes(listed)) return [`${target} is on the do-not-contact list`];
  switch (proposal.action) {
    case 'linkedin_scrape_profile':
    case 'linkedin_send_message':
    case 'send_email': {
      const foreign = foreignTarget(proposal, context);
      return foreign ? [foreign] : smuggled(proposal, context);
    }
    case 'refresh_session':
      return context.secretNames.includes(proposal.args.secretName)
        ? []
        : [`args.secretName must be one of ${context.secretNames.join(', ') || '(none configured)'}`];
    default:
      return [];
  }
}

/** The untrusted text of a task cycle: the lead's name, its profile, recent leads' names. */
export function untrustedTextOf(context: CycleContext): UntrustedText[] {
  return untrustedTexts({ lead: context.kind === 'task' ? context.lead : undefined, recent: context.recent });
}

/** A proposal as the model wrote it, checked or not: its action's name and its arguments. */
interface Written {
  readonly action: unknown;
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * What an answer the model wrote takes from the cycle's untrusted text, whether or not it
 * passed the action contracts: a target that is not the lead's own, addresses its message
 * repeats. A refused answer's audit row then names the mismatch too, not only that, say,
 * `args.to` is no email address (docs/outreach.md#untrusted-text).
 */
export function untrustedTextProblems(answer: unknown, context: CycleContext): string[] {
  if (context.kind !== 'task' || typeof answer !== 'object' || answer === null) return [];
  const { action, args } = answer as Record<string, unknown>;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return [];
  const written = { action, args: args as Record<string, unknown> };
  const foreign = foreignTarget(written, context);
  return foreign ? [foreign, ...smuggled(written, context)] : smuggled(written, context);
}

/** Why the answer's target is not the lead's own recorded one, or null when it is (or it has none). */
function foreignTarget({ action, args }: Written, context: TaskContext): string | null {
  const email = action === 'send_email';
  if (!email && action !== 'linkedin_send_message' && action !== 'linkedin_scrape_profile') return null;
  const [key, what, recorded] = email ? ['to', 'email', context.lead.email] : ['profileUrl', 'profile URL', context.lead.linkedinUrl];
  const target = args[key];
  if (typeof target !== 'string') return null;
  // An email is the lead's when its key is (however the local part is cased, the domain spelled).
  if (recorded !== null && (email ? emailKey(target) === emailKey(recorded) : canonicalProfileUrl(target) === recorded)) return null;
  const read = untrustedTextOf(context).map((entry) => entry.field);
  return (
    `args.${key} is ${target}, not the lead's recorded ${what} ${recorded ?? '(none)'}: a cycle that read untrusted text ` +
    `(${[...new Set(read)].join(', ')}) may target only the lead's own recorded profile URL and email`
  );
}

/** Addresses from untrusted text that the answer's message repeats, each a problem. */
function smuggled({ action, args }: Written, context: TaskContext): string[] {
  const keys = action === 'linkedin_send_message' ? ['message'] : action === 'send_email' ? ['subject', 'body'] : [];
  const texts = keys.flatMap((key) => (typeof args[key] === 'string' ? [{ field: `args.${key}`, text: args[key] }] : []));
  if (texts.length === 0) return [];
  const owners = [context.brief, context.templates].flatMap((texts) => (texts ? (Object.values(texts) as (string | null)[]) : []));
  return smuggledAddresses({
    texts,
    untrusted: untrustedTextOf(context),
    allowed: [context.lead.linkedinUrl, context.lead.email, ...owners].filter((text): text is string => text !== null),
  }).map(
    ({ field, address, sources }) =>
      `${field} names ${address}, an address found in untrusted text (${sources.join(', ')}): ` +
      "a message may name no address from it but the lead's own",
  );
}

/**
 * What makes two actions the same action: the task and its attempt, the action, its
 * target and its arguments. The idempotency key is a hash of this text.
 */
export function idempotencyMaterial(taskId: string, attempt: number, proposal: Proposal): string {
  return canonicalJson({ taskId, attempt, action: proposal.action, target: actionTarget(proposal), args: proposal.args });
}
