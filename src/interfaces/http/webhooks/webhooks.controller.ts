import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints';
import type { WebhookOwner } from '../../../domain/webhooks/webhook-endpoint';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { PAGE_LIMIT_DEFAULT, PageQueryDto } from '../shared/page-query.dto';
import { RateLimit } from '../shared/rate-limit';
import { UserPathDto } from '../todo/task.dto';
import {
  CreateWebhookRequestDto,
  RotateWebhookSecretQueryDto,
  UpdateWebhookRequestDto,
  UserWebhookPathDto,
  WebhookDeliveryDto,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookWithSecretDto,
} from './webhook.dto';

const person = (userId: string): WebhookOwner => ({ kind: 'person', userId });

/**
 * A person's webhook endpoints: the notifications addressed to them, POSTed signed as Standard
 * Webhooks (docs/webhooks.md). Only a signed-in session manages them (no RequiredScope): a
 * leaked token cannot add a place to send a person's notifications.
 */
@ApiTags('webhooks')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookEndpoints) {}

  @Get()
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: 'Your webhook endpoints, oldest first',
    description: 'Each with its state and its last attempt. Never a secret.',
  })
  @ApiOkResponse({ type: [WebhookDto], description: 'The endpoints, without their secrets' })
  async list(@Param() path: UserPathDto): Promise<WebhookDto[]> {
    return (await this.webhooks.list(person(path.userId))).map((endpoint) => WebhookDto.of(endpoint));
  }

  @Post()
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Register a webhook endpoint',
    description:
      'It receives the notifications addressed to you from now on, in order, each signed (Standard Webhooks). ' +
      'The answer holds the signing secret, once. At most WEBHOOK_ENDPOINTS_PER_USER endpoints. Audited.',
  })
  @ApiCreatedResponse({ type: WebhookWithSecretDto, description: 'Registered: the answer holds the secret, this once' })
  @ApiErrors({ status: 409, description: 'WEBHOOKS.LIMIT_REACHED: delete an endpoint first' })
  async create(@Param() path: UserPathDto, @Body() body: CreateWebhookRequestDto): Promise<WebhookWithSecretDto> {
    const { endpoint, secret } = await this.webhooks.create(person(path.userId), path.userId, body);
    return { ...WebhookDto.of(endpoint), secret };
  }

  @Get(':webhookId')
  @ApiOperation({ operationId: 'getWebhook', summary: 'One of your webhook endpoints', description: 'Never its secret.' })
  @ApiOkResponse({ type: WebhookDto, description: 'The endpoint' })
  @ApiErrors(404)
  async get(@Param() path: UserWebhookPathDto): Promise<WebhookDto> {
    return WebhookDto.of(await this.webhooks.get(person(path.userId), path.webhookId));
  }

  @Patch(':webhookId')
  @ApiOperation({
    operationId: 'updateWebhook',
    summary: 'Change, disable or enable a webhook endpoint',
    description:
      'Fields left out stay. `enabled: true` starts deliveries again where they stopped (the waiting message first, its retries ' +
      'afresh); a new URL does too. Audited.',
  })
  @ApiOkResponse({ type: WebhookDto, description: 'The endpoint as it is now' })
  @ApiErrors(404)
  async update(@Param() path: UserWebhookPathDto, @Body() body: UpdateWebhookRequestDto): Promise<WebhookDto> {
    return WebhookDto.of(await this.webhooks.update(person(path.userId), path.userId, path.webhookId, body));
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint',
    description: 'Nothing more is sent to it; its delivery log goes with it. Audited.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(@Param() path: UserWebhookPathDto): Promise<void> {
    await this.webhooks.remove(person(path.userId), path.userId, path.webhookId);
  }

  @Post(':webhookId/secret')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'changeWebhookSecret',
    summary: 'Give a webhook endpoint a new signing secret',
    description:
      'The answer holds the new secret, once. The old one keeps signing next to it (two signatures in webhook-signature) for ' +
      '`?keepPreviousHours`, 24 by default; 0 stops it now. Audited.',
  })
  @ApiOkResponse({ type: WebhookWithSecretDto, description: 'The endpoint, with its new secret this once' })
  @ApiErrors(404)
  async rotate(@Param() path: UserWebhookPathDto, @Query() query: RotateWebhookSecretQueryDto): Promise<WebhookWithSecretDto> {
    const { endpoint, secret } = await this.webhooks.rotateSecret(
      person(path.userId),
      path.userId,
      path.webhookId,
      query.keepPreviousHours,
    );
    return { ...WebhookDto.of(endpoint), secret };
  }

  @Get(':webhookId/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log of a webhook endpoint, latest attempt first',
    description:
      'Every attempt: its webhook-id, event, attempt number, time, the status or the failure, its duration and the next attempt. ' +
      'Kept WEBHOOK_DELIVERY_RETENTION_DAYS, at most 1 000 per endpoint. One page; pass nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: WebhookDeliveryPageDto, description: 'One page of attempts' })
  @ApiErrors(404)
  async deliveries(@Param() path: UserWebhookPathDto, @Query() query: PageQueryDto): Promise<WebhookDeliveryPageDto> {
    const page = await this.webhooks.deliveries(person(path.userId), path.webhookId, {
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((delivery) => WebhookDeliveryDto.of(delivery)), nextCursor: page.nextCursor };
  }
}
