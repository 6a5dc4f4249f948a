import type { EventChoices } from '../../../domain/notifications/preferences';

/** What each person chose to receive by email; an event they never chose for is on. */
export abstract class NotificationPreferences {
  abstract emailChoices(userId: string): Promise<EventChoices>;
  /** Sets the events named (on or off); the others stay as they were. */
  abstract setEmailChoices(userId: string, choices: EventChoices, now: Date): Promise<void>;
}
