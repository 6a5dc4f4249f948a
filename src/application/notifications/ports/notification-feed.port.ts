import type { NotificationEvent, NotificationFacts, NotificationSubject } from '../../../domain/notifications/notification';
import type { Page } from '../../shared/page';

/** A notification as its recipient lists it. */
export interface ListedNotification {
  readonly id: string;
  readonly event: NotificationEvent;
  readonly subject: NotificationSubject;
  readonly facts: NotificationFacts;
  readonly createdAt: Date;
  /** Written for every admin, rather than for this person alone. */
  readonly toAdmins: boolean;
}

/** The notifications a person received, newest first. */
export abstract class NotificationFeed {
  /** @param admin whether the notifications written for every admin are the person's too. */
  abstract list(userId: string, admin: boolean, limit: number, cursor: string | null): Promise<Page<ListedNotification>>;
}
