/** Webhook endpoints: the person's own (/api/{userId}/webhooks) and, for admins, the deployment's (/admin/webhooks). */
import type {
  ChangeDeploymentWebhookSecretData,
  ChangeWebhookSecretData,
  CreateDeploymentWebhookData,
  CreateWebhookData,
  DeleteDeploymentWebhookData,
  DeleteWebhookData,
  ListDeploymentWebhookDeliveriesData,
  ListDeploymentWebhooksData,
  ListWebhookDeliveriesData,
  ListWebhooksData,
  UpdateDeploymentWebhookData,
  UpdateWebhookData,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookWithSecretDto,
} from '../generated/types.gen';
import { json, send, type Session, url } from './http';

export type Webhook = WebhookDto;
export type WebhookWithSecret = WebhookWithSecretDto;
export type WebhookDeliveryPage = WebhookDeliveryPageDto;
export type WebhookEvent = NonNullable<Webhook['events']>[number];
/** Whose endpoints: the signed-in person's, or the deployment's (admins only). */
export type WebhookScope = 'person' | 'deployment';

export interface NewWebhook {
  readonly url: string;
  readonly description?: string;
  /** null: every event. */
  readonly events: WebhookEvent[] | null;
  /** The deployment's only: every person's events too. */
  readonly allPeople?: boolean;
}

export interface WebhookChange {
  readonly enabled?: boolean;
}

const personPath = (session: Session) => ({ path: { userId: session.userId } });
const personHook = (session: Session, webhookId: string) => ({ path: { userId: session.userId, webhookId } });

export function listWebhooks(session: Session, scope: WebhookScope): Promise<Webhook[]> {
  const path =
    scope === 'person'
      ? url<ListWebhooksData>('/api/{userId}/webhooks', personPath(session))
      : url<ListDeploymentWebhooksData>('/admin/webhooks', {});
  return json<Webhook[]>('GET', path, session);
}

/** A new endpoint; the answer's `secret` is shown this once. */
export function createWebhook(session: Session, scope: WebhookScope, webhook: NewWebhook): Promise<WebhookWithSecret> {
  if (scope === 'person') {
    const body: CreateWebhookData['body'] = { url: webhook.url, description: webhook.description, events: webhook.events };
    return json<WebhookWithSecret>('POST', url<CreateWebhookData>('/api/{userId}/webhooks', personPath(session)), session, body);
  }
  const body: CreateDeploymentWebhookData['body'] = { ...webhook };
  return json<WebhookWithSecret>('POST', url<CreateDeploymentWebhookData>('/admin/webhooks', {}), session, body);
}

export function updateWebhook(session: Session, scope: WebhookScope, webhookId: string, change: WebhookChange): Promise<Webhook> {
  const path =
    scope === 'person'
      ? url<UpdateWebhookData>('/api/{userId}/webhooks/{webhookId}', personHook(session, webhookId))
      : url<UpdateDeploymentWebhookData>('/admin/webhooks/{webhookId}', { path: { webhookId } });
  return json<Webhook>('PATCH', path, session, change);
}

export async function deleteWebhook(session: Session, scope: WebhookScope, webhookId: string): Promise<void> {
  const path =
    scope === 'person'
      ? url<DeleteWebhookData>('/api/{userId}/webhooks/{webhookId}', personHook(session, webhookId))
      : url<DeleteDeploymentWebhookData>('/admin/webhooks/{webhookId}', { path: { webhookId } });
  await send('DELETE', path, session);
}

/** A new signing secret, shown this once; the old one keeps signing beside it for a day. */
export function rotateWebhookSecret(session: Session, scope: WebhookScope, webhookId: string): Promise<WebhookWithSecret> {
  const path =
    scope === 'person'
      ? url<ChangeWebhookSecretData>('/api/{userId}/webhooks/{webhookId}/secret', personHook(session, webhookId))
      : url<ChangeDeploymentWebhookSecretData>('/admin/webhooks/{webhookId}/secret', { path: { webhookId } });
  return json<WebhookWithSecret>('POST', path, session);
}

/** One page of the delivery log, latest attempt first. */
export function listWebhookDeliveries(
  session: Session,
  scope: WebhookScope,
  webhookId: string,
  cursor?: string,
): Promise<WebhookDeliveryPage> {
  const query = { limit: 20, cursor };
  const path =
    scope === 'person'
      ? url<ListWebhookDeliveriesData>('/api/{userId}/webhooks/{webhookId}/deliveries', { ...personHook(session, webhookId), query })
      : url<ListDeploymentWebhookDeliveriesData>('/admin/webhooks/{webhookId}/deliveries', { path: { webhookId }, query });
  return json<WebhookDeliveryPage>('GET', path, session);
}
