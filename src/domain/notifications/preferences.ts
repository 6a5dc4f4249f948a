import type { Role } from '../identity/user';
import { NOTIFICATION_EVENTS, type NotificationEvent } from './notification';

/**
 * The channels a person chooses events for. Email is the person's own mailbox; a webhook is an
 * endpoint of its own, whose events are chosen where the endpoint is.
 */
export const NOTIFICATION_CHANNELS = ['email'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

/** Events written for every admin only: a member is never one of their recipients. */
const ADMIN_ONLY_EVENTS: ReadonlySet<NotificationEvent> = new Set(['policy.stored']);

/** The events that can reach a person of this role: all of them for an admin, all but the admins' own for a member. */
export function eventsConcerning(role: Role): readonly NotificationEvent[] {
  return role === 'admin' ? NOTIFICATION_EVENTS : NOTIFICATION_EVENTS.filter((event) => !ADMIN_ONLY_EVENTS.has(event));
}

/** What a person chose for some events of one channel: true on, false off; an event not named is on. */
export type EventChoices = Readonly<Partial<Record<NotificationEvent, boolean>>>;

/** Each event that concerns the person, on or off as they chose it (on unless they turned it off). */
export function choicesInForce(role: Role, chosen: EventChoices): Readonly<Partial<Record<NotificationEvent, boolean>>> {
  return Object.fromEntries(eventsConcerning(role).map((event) => [event, chosen[event] ?? true]));
}
