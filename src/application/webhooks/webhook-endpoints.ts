import { Injectable } from '@nestjs/common';
import {
  DEFAULT_KEEP_PREVIOUS_HOURS,
  InvalidWebhookError,
  validateWebhookRequest,
  type WebhookDelivery,
  type WebhookEndpoint,
  WebhookLimitReachedError,
  WEBHOOK_LIMITS,
  WebhookNotFoundError,
  type WebhookOwner,
  type WebhookRequest,
} from '../../domain/webhooks/webhook-endpoint';
import { auditedChange } from '../audit/audited-change';
import { AuditLog, type ToolAuditEntry } from '../audit/ports/audit-log.port';
import { Clock } from '../shared/ports/clock.port';
import type { Page } from '../shared/page';
import { WebhookEndpointRepository } from './ports/webhook-endpoint-repository.port';
import { WebhookSigner } from './ports/webhook-signer.port';
import { WebhookSettings } from './webhook-settings';

/** An endpoint with its secret: in the answer to a registration or a rotation, and nowhere else. */
export interface EndpointWithSecret {
  readonly endpoint: WebhookEndpoint;
  readonly secret: string;
}

export interface WebhookRegistration extends WebhookRequest {
  readonly url: string;
  /** A deployment endpoint's only. */
  readonly allPeople?: boolean;
}

export interface WebhookUpdate extends WebhookRequest {
  readonly enabled?: boolean;
  readonly allPeople?: boolean;
}

/**
 * Webhook endpoints, a person's own or the deployment's (admins'): registered, changed,
 * disabled and enabled, deleted, their secret rotated, their delivery log read. Every change
 * is audited (source `account` for a person, `admin` for the deployment) with the endpoint's
 * id, host and events, never its full URL (which may carry a token) or its secret.
 */
@Injectable()
export class WebhookEndpoints {
  constructor(
    private readonly repository: WebhookEndpointRepository,
    private readonly signer: WebhookSigner,
    private readonly settings: WebhookSettings,
    private readonly auditLog: AuditLog,
    private readonly clock: Clock,
  ) {}

  /** @throws InvalidWebhookError, WebhookLimitReachedError */
  async create(owner: WebhookOwner, actorId: string, request: WebhookRegistration): Promise<EndpointWithSecret> {
    const valid = validateWebhookRequest(request, this.settings.privateHosts);
    const allPeople = this.allPeople(owner, request.allPeople) ?? false;
    const secret = this.signer.newSecret();
    const url = valid.url!;
    const entry = this.entry(owner, actorId, 'create_webhook', { host: hostOf(url), events: valid.events ?? null, allPeople });
    return auditedChange(this.audit, entry, async (now) => {
      const endpoint = await this.repository.create(
        {
          owner,
          createdBy: actorId,
          url,
          description: valid.description ?? '',
          events: valid.events ?? null,
          allPeople,
          secret,
        },
        this.settings.endpointsPerOwner,
        now,
      );
      if (!endpoint) throw new WebhookLimitReachedError(this.settings.endpointsPerOwner);
      return { result: { webhookId: endpoint.id }, value: { endpoint, secret } };
    });
  }

  list(owner: WebhookOwner): Promise<WebhookEndpoint[]> {
    return this.repository.list(owner);
  }

  /** @throws WebhookNotFoundError */
  async get(owner: WebhookOwner, id: string): Promise<WebhookEndpoint> {
    return (await this.repository.find(owner, id)) ?? notFound();
  }

  /** @throws InvalidWebhookError (also for a change that names nothing), WebhookNotFoundError */
  async update(owner: WebhookOwner, actorId: string, id: string, request: WebhookUpdate): Promise<WebhookEndpoint> {
    const fields = ['url', 'events', 'description', 'enabled', ...(owner.kind === 'deployment' ? ['allPeople'] : [])] as const;
    if (fields.every((field) => request[field as keyof WebhookUpdate] === undefined)) {
      throw new InvalidWebhookError('body', `Send at least one of ${fields.join(', ')}`);
    }
    const valid = validateWebhookRequest(request, this.settings.privateHosts);
    const allPeople = this.allPeople(owner, request.allPeople);
    const change = {
      ...valid,
      ...(allPeople === undefined ? {} : { allPeople }),
      ...(request.enabled === undefined ? {} : { enabled: request.enabled }),
    };
    const args = { webhookId: id, ...(valid.url ? { host: hostOf(valid.url) } : {}), ...withoutUrl(change) };
    return auditedChange(this.audit, this.entry(owner, actorId, 'update_webhook', args), async (now) => {
      const endpoint = (await this.repository.update(owner, id, change, now)) ?? notFound();
      return { result: { webhookId: id, enabled: endpoint.enabled }, value: endpoint };
    });
  }

  /** @throws WebhookNotFoundError */
  async remove(owner: WebhookOwner, actorId: string, id: string): Promise<void> {
    await auditedChange(this.audit, this.entry(owner, actorId, 'delete_webhook', { webhookId: id }), async () => {
      if (!(await this.repository.remove(owner, id))) notFound();
      return { result: { webhookId: id }, value: undefined };
    });
  }

  /**
   * A new secret, in this answer only. The old one keeps signing next to it for
   * `keepPreviousHours` (24 by default; 0 stops it now, after a leak), so the receiver can
   * switch without refusing a delivery. @throws InvalidWebhookError, WebhookNotFoundError
   */
  async rotateSecret(owner: WebhookOwner, actorId: string, id: string, keepPreviousHours?: number): Promise<EndpointWithSecret> {
    const hours = keepPreviousHours ?? DEFAULT_KEEP_PREVIOUS_HOURS;
    if (!Number.isInteger(hours) || hours < 0 || hours > WEBHOOK_LIMITS.keepPreviousHours) {
      throw new InvalidWebhookError(
        'keepPreviousHours',
        `keepPreviousHours must be a whole number from 0 to ${WEBHOOK_LIMITS.keepPreviousHours}`,
      );
    }
    const secret = this.signer.newSecret();
    const entry = this.entry(owner, actorId, 'rotate_webhook_secret', { webhookId: id, keepPreviousHours: hours });
    return auditedChange(this.audit, entry, async (now) => {
      const until = hours === 0 ? null : new Date(now.getTime() + hours * 3_600_000);
      const endpoint = (await this.repository.rotateSecret(owner, id, secret, until, now)) ?? notFound();
      return { result: { webhookId: id }, value: { endpoint, secret } };
    });
  }

  /** @throws WebhookNotFoundError */
  async deliveries(owner: WebhookOwner, id: string, page: { limit: number; cursor: string | null }): Promise<Page<WebhookDelivery>> {
    return (await this.repository.deliveries(owner, id, page)) ?? notFound();
  }

  private get audit() {
    return { auditLog: this.auditLog, clock: this.clock };
  }

  /** `allPeople` as given, refused for a person's endpoint, which receives only its owner's events. */
  private allPeople(owner: WebhookOwner, allPeople: boolean | undefined): boolean | undefined {
    if (allPeople !== undefined && owner.kind === 'person') {
      throw new InvalidWebhookError('allPeople', "allPeople is for the deployment's endpoints (/admin/webhooks) only");
    }
    return allPeople;
  }

  private entry(owner: WebhookOwner, actorId: string, tool: string, args: Record<string, unknown>): ToolAuditEntry {
    return { source: owner.kind === 'person' ? 'account' : 'admin', actorId, tool, arguments: args, securityEvents: [] };
  }
}

function notFound(): never {
  throw new WebhookNotFoundError();
}

function hostOf(url: string): string {
  return new URL(url).host;
}

function withoutUrl<T extends { url?: string }>(change: T): Omit<T, 'url'> {
  return Object.fromEntries(Object.entries(change).filter(([key]) => key !== 'url')) as Omit<T, 'url'>;
}
