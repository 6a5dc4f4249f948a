import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { WebhookEndpoints } from '../../../application/webhooks/webhook-endpoints';
import type { WebhookOwner } from '../../../domain/webhooks/webhook-endpoint';
import { AdminGuard } from '../admin/admin.guard';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { PAGE_LIMIT_DEFAULT, PageQueryDto } from '../shared/page-query.dto';
import { RateLimit } from '../shared/rate-limit';
import {
  CreateDeploymentWebhookRequestDto,
  RotateWebhookSecretQueryDto,
  UpdateDeploymentWebhookRequestDto,
  WebhookDeliveryDto,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookPathDto,
  WebhookWithSecretDto,
} from './webhook.dto';

const DEPLOYMENT: WebhookOwner = { kind: 'deployment' };

/**
 * The deployment's webhook endpoints, which admins manage together: they receive the
 * notifications addressed to every admin (a stored policy version, an escalated draft, a
 * deployment endpoint disabled…) and, with `allPeople`, every person's too
 * (docs/webhooks.md). Signed-in admin sessions only.
 */
@ApiTags('admin')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/webhooks')
export class AdminWebhooksController {
  constructor(private readonly webhooks: WebhookEndpoints) {}

  @Get()
  @ApiOperation({
    operationId: 'listDeploymentWebhooks',
    summary: 'The deployment’s webhook endpoints, oldest first',
    description: 'Each with its state and its last attempt. Never a secret.',
  })
  @ApiOkResponse({ type: [WebhookDto], description: 'The endpoints, without their secrets' })
  async list(): Promise<WebhookDto[]> {
    return (await this.webhooks.list(DEPLOYMENT)).map((endpoint) => WebhookDto.of(endpoint));
  }

  @Post()
  @ApiOperation({
    operationId: 'createDeploymentWebhook',
    summary: 'Register a deployment webhook endpoint',
    description:
      'It receives the admins’ notifications from now on (and every person’s with `allPeople`), in order, each signed. ' +
      'The answer holds the signing secret, once. At most WEBHOOK_ENDPOINTS_PER_USER endpoints. Audited.',
  })
  @ApiCreatedResponse({ type: WebhookWithSecretDto, description: 'Registered: the answer holds the secret, this once' })
  @ApiErrors({ status: 409, description: 'WEBHOOKS.LIMIT_REACHED: delete an endpoint first' })
  async create(@Body() body: CreateDeploymentWebhookRequestDto, @CurrentPrincipal() admin: Principal): Promise<WebhookWithSecretDto> {
    const { endpoint, secret } = await this.webhooks.create(DEPLOYMENT, admin.userId, body);
    return { ...WebhookDto.of(endpoint), secret };
  }

  @Get(':webhookId')
  @ApiOperation({
    operationId: 'getDeploymentWebhook',
    summary: 'One of the deployment’s webhook endpoints',
    description: 'Never its secret.',
  })
  @ApiOkResponse({ type: WebhookDto, description: 'The endpoint' })
  @ApiErrors(404)
  async get(@Param() path: WebhookPathDto): Promise<WebhookDto> {
    return WebhookDto.of(await this.webhooks.get(DEPLOYMENT, path.webhookId));
  }

  @Patch(':webhookId')
  @ApiOperation({
    operationId: 'updateDeploymentWebhook',
    summary: 'Change, disable or enable a deployment webhook endpoint',
    description: 'As PATCH /api/{userId}/webhooks/{webhookId}, and `allPeople`. Audited.',
  })
  @ApiOkResponse({ type: WebhookDto, description: 'The endpoint as it is now' })
  @ApiErrors(404)
  async update(
    @Param() path: WebhookPathDto,
    @Body() body: UpdateDeploymentWebhookRequestDto,
    @CurrentPrincipal() admin: Principal,
  ): Promise<WebhookDto> {
    return WebhookDto.of(await this.webhooks.update(DEPLOYMENT, admin.userId, path.webhookId, body));
  }

  @Delete(':webhookId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteDeploymentWebhook',
    summary: 'Delete a deployment webhook endpoint',
    description: 'Nothing more is sent to it; its delivery log goes with it. Audited.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(@Param() path: WebhookPathDto, @CurrentPrincipal() admin: Principal): Promise<void> {
    await this.webhooks.remove(DEPLOYMENT, admin.userId, path.webhookId);
  }

  @Post(':webhookId/secret')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'changeDeploymentWebhookSecret',
    summary: 'Give a deployment webhook endpoint a new signing secret',
    description: 'As POST /api/{userId}/webhooks/{webhookId}/secret. Audited.',
  })
  @ApiOkResponse({ type: WebhookWithSecretDto, description: 'The endpoint, with its new secret this once' })
  @ApiErrors(404)
  async rotate(
    @Param() path: WebhookPathDto,
    @Query() query: RotateWebhookSecretQueryDto,
    @CurrentPrincipal() admin: Principal,
  ): Promise<WebhookWithSecretDto> {
    const { endpoint, secret } = await this.webhooks.rotateSecret(DEPLOYMENT, admin.userId, path.webhookId, query.keepPreviousHours);
    return { ...WebhookDto.of(endpoint), secret };
  }

  @Get(':webhookId/deliveries')
  @ApiOperation({
    operationId: 'listDeploymentWebhookDeliveries',
    summary: 'The delivery log of a deployment webhook endpoint, latest attempt first',
    description: 'As GET /api/{userId}/webhooks/{webhookId}/deliveries.',
  })
  @ApiOkResponse({ type: WebhookDeliveryPageDto, description: 'One page of attempts' })
  @ApiErrors(404)
  async deliveries(@Param() path: WebhookPathDto, @Query() query: PageQueryDto): Promise<WebhookDeliveryPageDto> {
    const page = await this.webhooks.deliveries(DEPLOYMENT, path.webhookId, {
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((delivery) => WebhookDeliveryDto.of(delivery)), nextCursor: page.nextCursor };
  }
}
