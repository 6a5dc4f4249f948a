import type { Tone } from '../../../ui';
import type { Webhook, WebhookEvent } from '../../../api';

/** Each event in plain words; keyed by the API's own event type, so a new event fails the type check here. */
export const EVENT_WORDS: Record<WebhookEvent, string> = {
  'draft.awaiting_review': 'A draft waits for your review',
  'draft.escalated': 'A draft was handed to the admins',
  'draft.expired': 'A draft expired undecided',
  'confirmation.waiting': 'A confirmation waits in the console',
  'campaign.paused': 'A campaign paused',
  'campaign.finished': 'A campaign finished',
  'policy.stored': 'A new policy version is in force',
  'budget.threshold': 'Spend passed a budget threshold',
  'webhook.disabled': 'A webhook endpoint was disabled',
};
export const EVENTS = Object.keys(EVENT_WORDS) as WebhookEvent[];

const DISABLED_WORDS: Record<NonNullable<Webhook['disabledReason']>, string> = {
  owner: 'turned off',
  failing: 'failing for a day',
  gone: 'receiver said 410 Gone',
};

/** The endpoint's state as a badge: on, or off and why. */
export function stateOf(webhook: Webhook): { readonly tone: Tone; readonly text: string } {
  if (webhook.enabled) return { tone: 'success', text: 'enabled' };
  return {
    tone: webhook.disabledReason === 'owner' ? 'neutral' : 'danger',
    text: `disabled: ${DISABLED_WORDS[webhook.disabledReason ?? 'owner']}`,
  };
}

export const OUTCOME_TONE = { delivered: 'success', retrying: 'warning', failed: 'danger', gone: 'danger' } as const satisfies Record<
  NonNullable<Webhook['lastAttempt']>['outcome'],
  Tone
>;
