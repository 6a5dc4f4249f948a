import { Injectable } from '@nestjs/common';
import type { Role } from '../../domain/identity/user';
import type { Page } from '../shared/page';
import { type ListedNotification, NotificationFeed } from './ports/notification-feed.port';

@Injectable()
export class ListNotificationsUseCase {
  constructor(private readonly feed: NotificationFeed) {}

  /** The person's notifications, newest first: their own, and for an admin the admins' too. */
  execute(input: { userId: string; role: Role; limit: number; cursor: string | null }): Promise<Page<ListedNotification>> {
    return this.feed.list(input.userId, input.role === 'admin', input.limit, input.cursor);
  }
}
