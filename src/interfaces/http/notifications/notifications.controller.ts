import { Body, Controller, Get, Param, Put, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { ListNotificationsUseCase } from '../../../application/notifications/list-notifications.use-case';
import {
  GetNotificationPreferencesUseCase,
  UpdateNotificationPreferencesUseCase,
} from '../../../application/notifications/notification-preferences.use-case';
import { NOTIFICATION_EVENTS } from '../../../domain/notifications/notification';
import type { EventChoices } from '../../../domain/notifications/preferences';
import { BearerAuthGuard, CurrentPrincipal, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { PAGE_LIMIT_DEFAULT, PageQueryDto } from '../shared/page-query.dto';
import { RateLimit } from '../shared/rate-limit';
import { UserPathDto } from '../todo/task.dto';
import {
  NotificationPageDto,
  NotificationPreferencesResponseDto,
  NotificationResponseDto,
  UpdateNotificationPreferencesRequestDto,
} from './notification.dto';

/**
 * A person's notifications (docs/notifications.md): what they were told, and which events reach
 * them by email. A signed-in session only (no RequiredScope): the account's own settings.
 */
@ApiTags('notifications')
@ApiErrors(400)
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/notifications')
export class NotificationsController {
  constructor(
    private readonly listNotifications: ListNotificationsUseCase,
    private readonly getPreferences: GetNotificationPreferencesUseCase,
    private readonly updatePreferences: UpdateNotificationPreferencesUseCase,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listNotifications',
    summary: 'Your notifications, newest first',
    description:
      'Everything Bridle told you (a draft to review, a question waiting, a campaign finished…), whether or not it was mailed; ' +
      "for an admin, the admins' notifications too. Each names its subject and the console's page of it. One page; pass " +
      'nextCursor back as cursor for the next one.',
  })
  @ApiOkResponse({ type: NotificationPageDto, description: 'One page of notifications' })
  async list(
    @Param() path: UserPathDto,
    @Query() query: PageQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<NotificationPageDto> {
    const page = await this.listNotifications.execute({
      userId: path.userId,
      role: principal.role,
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((item) => NotificationResponseDto.of(item)), nextCursor: page.nextCursor };
  }

  @Get('preferences')
  @ApiOperation({
    operationId: 'getNotificationPreferences',
    summary: 'Which notifications reach you by email',
    description: 'Every event that can reach you, each on unless you turned it off, and whether this server sends email at all.',
  })
  @ApiOkResponse({ type: NotificationPreferencesResponseDto, description: 'Your choices' })
  async preferences(@Param() path: UserPathDto, @CurrentPrincipal() principal: Principal): Promise<NotificationPreferencesResponseDto> {
    return NotificationPreferencesResponseDto.of(await this.getPreferences.execute({ userId: path.userId, role: principal.role }));
  }

  @Put('preferences')
  @ApiOperation({
    operationId: 'updateNotificationPreferences',
    summary: 'Choose which notifications reach you by email',
    description:
      'Turns the events named on (true) or off (false); the others keep their choice. An event turned off is not mailed from ' +
      'then on, also when it was already waiting for the next mail. An unknown event or channel is a 400 naming it.',
  })
  @ApiOkResponse({ type: NotificationPreferencesResponseDto, description: 'Your choices, as they are now' })
  async update(
    @Param() path: UserPathDto,
    @Body() body: UpdateNotificationPreferencesRequestDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<NotificationPreferencesResponseDto> {
    const chosen = body.email;
    const email: EventChoices = Object.fromEntries(
      NOTIFICATION_EVENTS.filter((event) => typeof chosen[event] === 'boolean').map((event) => [event, chosen[event]]),
    );
    return NotificationPreferencesResponseDto.of(
      await this.updatePreferences.execute({ userId: path.userId, role: principal.role, email }),
    );
  }
}
