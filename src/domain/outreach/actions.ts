import type { JsonSchema, SchemaCheck } from '../agent/tools';
import type { CallTargets } from '../policy/policy';
import { emailAddress } from '../shared/email-address';
import { canonicalProfileUrl } from './lead';
import type { ActionKind } from './outreach-task';

/** Profile fields a look-up may ask for. */
export const PROFILE_FIELDS = ['name', 'headline', 'title', 'company', 'location', 'email'] as const;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

export const MESSAGE_MAX_LENGTH = 1900;
export const REASON_MIN_LENGTH = 10;
export const REASON_MAX_LENGTH = 200;
/** A cooldown longer than a week is a mistake, not a plan. */
export const COOLDOWN_MAX_HOURS = 168;

export type ProposedAction =
  | { readonly action: 'linkedin_scrape_profile'; readonly args: { readonly profileUrl: string; readonly fields: readonly ProfileField[] } }
  | { readonly action: 'linkedin_send_message'; readonly args: { readonly profileUrl: string; readonly message: string } }
  | { readonly action: 'send_email'; readonly args: { readonly to: string; readonly subject: string; readonly body: string } }
  | { readonly action: 'wait_cooldown'; readonly args: { readonly durationHours: number } }
  | { readonly action: 'refresh_session'; readonly args: { readonly secretName: string } }
  | { readonly action: 'complete_campaign'; readonly args: { readonly campaignId: string } };

export type ActionName = ProposedAction['action'];
/** An action a channel added beside the built-in ones declares (ActionCatalog): its arguments are its contract's. */
export interface AddedAction {
  readonly action: string;
  readonly args: Readonly<Record<string, unknown>>;
}
export type Proposal = (ProposedAction | AddedAction) & { readonly reason: string };
export type BuiltInProposal = ProposedAction & { readonly reason: string };

/** The contract of each action a cycle may take (ActionCatalog: the built-in ones and the channels' own). */
export interface ActionContracts {
  contract(name: unknown): ActionContract | undefined;
  names(): string[];
}

/** What an action is: its arguments (JSON Schema 2020-12), what it does, and the kind it meters (null: none). */
export interface ActionContract {
  readonly description: string;
  readonly args: JsonSchema;
  readonly kind: ActionKind | null;
}

/** Whether a proposal is one of the built-in actions (not one a channel added). */
export function isBuiltIn<T extends ProposedAction | AddedAction>(proposal: T): proposal is Extract<T, ProposedAction> {
  return Object.hasOwn(ACTION_CONTRACTS, proposal.action);
}

/**
 * What an action acts on, as the policy reads it (CallTargets): one thing, and for an email
 * the address it is sent to. A proposal's arguments are what runs (checked and put in canonical
 * form when the planner's answer was read), so they are its resolution; a recorded action's
 * arguments are read the same way.
 */
export function actionTargets(action: string, args: Readonly<Record<string, unknown>>): CallTargets {
  return { items: 1, recipient: action === 'send_email' && typeof args.to === 'string' ? args.to : null };
}

/**
 * The contract of each accepted action: its arguments, what it does, what it meters. The
 * arguments are JSON Schema 2020-12, checked by a complete implementation (SchemaCheck), so
 * any keyword or format it knows may be used; one it does not know refuses the start.
 */
export const ACTION_CONTRACTS: Readonly<Record<ActionName, ActionContract>> = {
  linkedin_scrape_profile: {
    description: 'Look up a LinkedIn profile and read the listed fields',
    kind: 'profile_lookup',
    args: {
      type: 'object',
      properties: {
        profileUrl: { type: 'string', maxLength: 200 },
        fields: { type: 'array', minItems: 1, maxItems: PROFILE_FIELDS.length, items: { type: 'string', enum: [...PROFILE_FIELDS] } },
      },
      required: ['profileUrl', 'fields'],
      additionalProperties: false,
    },
  },
  linkedin_send_message: {
    description: 'Send a LinkedIn message or connection request',
    kind: 'linkedin_message',
    args: {
      type: 'object',
      properties: {
        profileUrl: { type: 'string', maxLength: 200 },
        message: { type: 'string', minLength: 1, maxLength: MESSAGE_MAX_LENGTH },
      },
      required: ['profileUrl', 'message'],
      additionalProperties: false,
    },
  },
  send_email: {
    description: 'Send an email to the lead',
    kind: 'email',
    args: {
      type: 'object',
      properties: {
        to: { type: 'string', maxLength: 254 },
        subject: { type: 'string', minLength: 1, maxLength: 200 },
        body: { type: 'string', minLength: 1, maxLength: 10_000 },
      },
      required: ['to', 'subject', 'body'],
      additionalProperties: false,
    },
  },
  wait_cooldown: {
    description: 'Pause this task for a number of hours',
    kind: null,
    args: {
      type: 'object',
      // `reason` inside args is tolerated: models copy it there from the prompt's fallback example.
      properties: {
        durationHours: { type: 'number', minimum: 0.01, maximum: COOLDOWN_MAX_HOURS },
        reason: { type: 'string', maxLength: 200 },
      },
      required: ['durationHours'],
      additionalProperties: false,
    },
  },
  refresh_session: {
    description: 'Fetch a fresh channel session from the secret store, then retry the task',
    kind: null,
    args: {
      type: 'object',
      properties: { secretName: { type: 'string', minLength: 1, maxLength: 100 } },
      required: ['secretName'],
      additionalProperties: false,
    },
  },
  complete_campaign: {
    description: 'Mark the campaign completed once no task is left',
    kind: null,
    args: {
      type: 'object',
      properties: { campaignId: { type: 'string', format: 'uuid', maxLength: 64 } },
      required: ['campaignId'],
      additionalProperties: false,
    },
  },
};

export const ACTION_NAMES = Object.keys(ACTION_CONTRACTS) as ActionName[];

/** The built-in actions alone: what a check is handed when no channel added any. */
const BUILT_IN_CONTRACTS: ActionContracts = {
  contract: (name) =>
    typeof name === 'string' && Object.hasOwn(ACTION_CONTRACTS, name) ? ACTION_CONTRACTS[name as ActionName] : undefined,
  names: () => ACTION_NAMES,
};
const TOP_LEVEL_FIELDS = new Set(['action', 'args', 'reason']);

export type ProposalCheck = { readonly ok: true; readonly value: Proposal } | { readonly ok: false; readonly problems: string[] };

/**
 * A planner's answer is valid when it has `action`, `args` and `reason`; the action is in the allowlist;
 * the args meet its contract (checked by `schemas`); the reason is 10–200 characters; and it is ONE action.
 * Each problem names its field (`args.fields[0] must be one of …`).
 */
export function checkProposal(value: unknown, schemas: SchemaCheck, catalog: ActionContracts = BUILT_IN_CONTRACTS): ProposalCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: ['the answer must be one JSON object with action, args and reason'] };
  }
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  if ('actions' in record) problems.push('actions: exactly one action is accepted, not a list');
  for (const field of Object.keys(record)) {
    if (!TOP_LEVEL_FIELDS.has(field) && field !== 'actions')
      problems.push(`${field} is not accepted: answer with action, args and reason only`);
  }
  for (const field of TOP_LEVEL_FIELDS) {
    if (record[field] === undefined) problems.push(`${field} is required`);
  }
  const action = record.action;
  const contract = catalog.contract(action);
  const builtIn = typeof action === 'string' && Object.hasOwn(ACTION_CONTRACTS, action);
  if (action !== undefined && !contract) {
    problems.push(`action must be one of ${catalog.names().join(', ')}`);
  }
  if (contract && record.args !== undefined) {
    problems.push(...schemas.violations(contract.args, record.args, 'args').map((problem) => problem.message));
    if (problems.length === 0 && builtIn) problems.push(...semanticProblems(action as ActionName, record.args as Record<string, unknown>));
  }
  const args = record.args;
  if (typeof args === 'object' && args !== null && !Array.isArray(args) && ('action' in args || 'actions' in args)) {
    problems.push('args must not carry a second action');
  }
  const reason = record.reason;
  if (reason !== undefined) {
    const length = typeof reason === 'string' ? reason.trim().length : -1;
    if (length < REASON_MIN_LENGTH || length > REASON_MAX_LENGTH) {
      problems.push(`reason must be a text of ${REASON_MIN_LENGTH} to ${REASON_MAX_LENGTH} characters`);
    }
  }
  if (problems.length > 0) return { ok: false, problems: [...new Set(problems)] };
  const text = (reason as string).trim();
  if (!builtIn) return { ok: true, value: { action: action as string, args: record.args as Record<string, unknown>, reason: text } };
  return { ok: true, value: normalised(action as ActionName, record.args as Record<string, unknown>, text) };
}

function semanticProblems(action: ActionName, args: Record<string, unknown>): string[] {
  switch (action) {
    case 'linkedin_scrape_profile':
      return canonicalProfileUrl(args.profileUrl) ? [] : ['args.profileUrl must look like https://www.linkedin.com/in/<name>/'];
    case 'linkedin_send_message':
      return [
        ...(canonicalProfileUrl(args.profileUrl) ? [] : ['args.profileUrl must look like https://www.linkedin.com/in/<name>/']),
        ...blank(args, ['message']),
      ];
    case 'send_email': {
      const problems = emailAddress(args.to) ? [] : ['args.to must be an email address'];
      if (typeof args.subject === 'string' && /[\r\n\u0085\u2028\u2029]/.test(args.subject)) problems.push('args.subject must be one line');
      return [...problems, ...blank(args, ['subject', 'body'])];
    }
    case 'refresh_session':
      return /^[a-z0-9][a-z0-9_-]*$/i.test(args.secretName as string)
        ? []
        : ['args.secretName must be a secret name (letters, digits, - and _)'];
    case 'wait_cooldown':
    case 'complete_campaign':
      return [];
  }
}

/** Text a person reads must say something. */
function blank(args: Record<string, unknown>, fields: readonly string[]): string[] {
  return fields
    .filter((field) => typeof args[field] === 'string' && args[field].trim() === '')
    .map((field) => `args.${field} must not be blank`);
}

function normalised(action: ActionName, args: Record<string, unknown>, reason: string): BuiltInProposal {
  switch (action) {
    case 'linkedin_scrape_profile':
      return {
        action,
        args: { profileUrl: canonicalProfileUrl(args.profileUrl)!, fields: [...new Set(args.fields as ProfileField[])] },
        reason,
      };
    case 'linkedin_send_message':
      return { action, args: { profileUrl: canonicalProfileUrl(args.profileUrl)!, message: args.message as string }, reason };
    case 'send_email':
      return { action, args: { to: emailAddress(args.to)!.address, subject: args.subject as string, body: args.body as string }, reason };
    case 'wait_cooldown':
      return { action, args: { durationHours: args.durationHours as number }, reason };
    case 'refresh_session':
      return { action, args: { secretName: args.secretName as string }, reason };
    case 'complete_campaign':
      return { action, args: { campaignId: args.campaignId as string }, reason };
  }
}

/**
 * Seed 000's error shape: instead of an action, the model may say why it proposes none,
 * `{"error": {"code", "message", "suggestedAction", "suggestedArgs"}}`.
 */
export const PLANNER_ERROR_CODES = ['QUOTA_EXCEEDED', 'INVALID_CONTEXT', 'NO_VALID_ACTION'] as const;
export type PlannerErrorCode = (typeof PLANNER_ERROR_CODES)[number];
export const PLANNER_ERROR_MESSAGE_MAX_LENGTH = 500;
/** Suggested arguments are a hint, kept in the audit row: this much JSON at most. */
export const PLANNER_ERROR_ARGS_MAX_LENGTH = 2000;

export interface PlannerError {
  readonly code: PlannerErrorCode;
  /** One sentence for a person, trimmed. */
  readonly message: string;
  /** An action the model would take instead (e.g. wait_cooldown); null when it names none. */
  readonly suggestedAction: string | null;
  readonly suggestedArgs: Readonly<Record<string, unknown>> | null;
}

export type PlannerErrorCheck = { readonly ok: true; readonly value: PlannerError } | { readonly ok: false; readonly problems: string[] };

const ERROR_FIELDS = new Set(['code', 'message', 'suggestedAction', 'suggestedArgs']);

/**
 * A planner's answer in the error shape: exactly `error`, an object with a known `code`, a
 * `message` of 1–500 characters and, optionally, an allowlisted `suggestedAction` and an
 * object of `suggestedArgs`. Each problem names its field.
 * @returns null when the answer is not in the error shape (it has no `error`): it is then a proposal to check.
 */
export function checkPlannerError(value: unknown, catalog: ActionContracts = BUILT_IN_CONTRACTS): PlannerErrorCheck | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, 'error')) return null;
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const field of Object.keys(record)) {
    if (field !== 'error') problems.push(`${field} is not accepted beside error: answer {action, args, reason} or {error}, not both`);
  }
  const error = record.error;
  if (typeof error !== 'object' || error === null || Array.isArray(error)) {
    return { ok: false, problems: [...problems, 'error must be an object with code, message, suggestedAction and suggestedArgs'] };
  }
  const fields = error as Record<string, unknown>;
  for (const field of Object.keys(fields)) {
    if (!ERROR_FIELDS.has(field))
      problems.push(`error.${field} is not accepted: error has code, message, suggestedAction and suggestedArgs`);
  }
  const { code, message, suggestedAction, suggestedArgs } = fields;
  if (typeof code !== 'string' || !(PLANNER_ERROR_CODES as readonly string[]).includes(code)) {
    problems.push(`error.code must be one of ${PLANNER_ERROR_CODES.join(', ')}`);
  }
  const text = typeof message === 'string' ? message.trim() : '';
  if (text.length < 1 || text.length > PLANNER_ERROR_MESSAGE_MAX_LENGTH) {
    problems.push(`error.message must be a text of 1 to ${PLANNER_ERROR_MESSAGE_MAX_LENGTH} characters`);
  }
  if (suggestedAction !== undefined && suggestedAction !== null && !catalog.contract(suggestedAction)) {
    problems.push(`error.suggestedAction must be one of ${catalog.names().join(', ')}, or null`);
  }
  if (suggestedArgs !== undefined && suggestedArgs !== null) {
    if (typeof suggestedArgs !== 'object' || Array.isArray(suggestedArgs)) problems.push('error.suggestedArgs must be an object, or null');
    else if (JSON.stringify(suggestedArgs).length > PLANNER_ERROR_ARGS_MAX_LENGTH) {
      problems.push(`error.suggestedArgs must be at most ${PLANNER_ERROR_ARGS_MAX_LENGTH} characters of JSON`);
    }
  }
  if (problems.length > 0) return { ok: false, problems: [...new Set(problems)] };
  return {
    ok: true,
    value: {
      code: code as PlannerErrorCode,
      message: text,
      suggestedAction: (suggestedAction ?? null) as string | null,
      suggestedArgs: (suggestedArgs ?? null) as Readonly<Record<string, unknown>> | null,
    },
  };
}

/** Who an action reaches, for the do-not-contact list and the idempotency key. */
export function actionTarget(proposal: ProposedAction | AddedAction): string | null {
  if (!isBuiltIn(proposal)) return null;
  switch (proposal.action) {
    case 'linkedin_scrape_profile':
    case 'linkedin_send_message':
      return proposal.args.profileUrl;
    case 'send_email':
      return proposal.args.to;
    default:
      return null;
  }
}

export const MESSAGE_CHANNELS = ['linkedin', 'email'] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

/** What a message or email action hands to its channel, word for word. */
export interface SentMessage {
  readonly channel: MessageChannel;
  /** The LinkedIn profile URL, or the email address. */
  readonly recipient: string;
  /** The email's subject; null for a LinkedIn message. */
  readonly subject: string | null;
  /** The LinkedIn message, or the email's body. */
  readonly text: string;
}

/** The message an action sends, exactly as its channel is given it; null for an action that sends none. */
export function sentMessageOf(proposal: ProposedAction | AddedAction): SentMessage | null {
  if (!isBuiltIn(proposal)) return null;
  switch (proposal.action) {
    case 'linkedin_send_message':
      return { channel: 'linkedin', recipient: proposal.args.profileUrl, subject: null, text: proposal.args.message };
    case 'send_email':
      return { channel: 'email', recipient: proposal.args.to, subject: proposal.args.subject, text: proposal.args.body };
    default:
      return null;
  }
}

/**
 * A task's output once its action went to the channel and did not certainly fail (done,
 * unverified, or of unknown outcome): a message or email task keeps, under `sent`, what its
 * channel was given, so that its owner can read exactly what went out (or may have).
 */
export function withSentMessage(
  output: Readonly<Record<string, unknown>>,
  proposal: ProposedAction | AddedAction,
): Readonly<Record<string, unknown>> {
  const sent = sentMessageOf(proposal);
  return sent ? { ...output, sent } : output;
}
