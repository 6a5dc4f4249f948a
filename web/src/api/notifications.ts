/** What Bridle tells the person, and which of it reaches them by email. */
import type {
  GetNotificationPreferencesData,
  GetNotificationPreferencesResponse,
  NotificationPreferencesResponseDto,
  UpdateNotificationPreferencesData,
  UpdateNotificationPreferencesResponse,
} from '../generated/types.gen';
import { json, type Session, url } from './http';

export type NotificationPreferences = NotificationPreferencesResponseDto;
export type EmailChoices = NotificationPreferences['email'];
export type NotificationEvent = keyof EmailChoices;

/** Every event that can reach the person, each on or off by email, and whether this server mails at all. */
export async function getNotificationPreferences(session: Session): Promise<NotificationPreferences> {
  const path = url<GetNotificationPreferencesData>('/api/{userId}/notifications/preferences', { path: { userId: session.userId } });
  return json<GetNotificationPreferencesResponse>('GET', path, session);
}

/** Turns the events named on or off by email; the others keep their choice. */
export async function updateNotificationPreferences(session: Session, email: EmailChoices): Promise<NotificationPreferences> {
  const body: UpdateNotificationPreferencesData['body'] = { email };
  const path = url<UpdateNotificationPreferencesData>('/api/{userId}/notifications/preferences', { path: { userId: session.userId } });
  return json<UpdateNotificationPreferencesResponse>('PUT', path, session, body);
}
