import { Injectable } from '@nestjs/common';
import type { Role } from '../../domain/identity/user';
import type { NotificationEvent } from '../../domain/notifications/notification';
import { choicesInForce, type EventChoices } from '../../domain/notifications/preferences';
import { Clock } from '../shared/ports/clock.port';
import { NotificationPreferences } from './ports/notification-preferences.port';

/** Which channels this deployment delivers on: email only when SMTP_URL is set. A class, so that it is its own injection token. */
export class NotificationChannelsInUse {
  constructor(readonly email: boolean) {}
}

/** A person's choices: every event that concerns them, on or off, and whether email goes out at all here. */
export interface PreferencesView {
  readonly email: Readonly<Partial<Record<NotificationEvent, boolean>>>;
  readonly emailDelivered: boolean;
}

@Injectable()
export class GetNotificationPreferencesUseCase {
  constructor(
    private readonly preferences: NotificationPreferences,
    private readonly channels: NotificationChannelsInUse,
  ) {}

  async execute(input: { userId: string; role: Role }): Promise<PreferencesView> {
    const chosen = await this.preferences.emailChoices(input.userId);
    return { email: choicesInForce(input.role, chosen), emailDelivered: this.channels.email };
  }
}

@Injectable()
export class UpdateNotificationPreferencesUseCase {
  constructor(
    private readonly preferences: NotificationPreferences,
    private readonly clock: Clock,
    private readonly read: GetNotificationPreferencesUseCase,
  ) {}

  /** Sets the events named; the others keep what the person chose before (on, unless turned off). */
  async execute(input: { userId: string; role: Role; email: EventChoices }): Promise<PreferencesView> {
    await this.preferences.setEmailChoices(input.userId, input.email, this.clock.now());
    return this.read.execute(input);
  }
}
