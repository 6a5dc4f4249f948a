import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AddDoNotContactUseCase } from '../../../application/outreach/campaigns/add-do-not-contact.use-case';
import { ListDoNotContactUseCase } from '../../../application/outreach/campaigns/list-do-not-contact.use-case';
import { RemoveDoNotContactUseCase } from '../../../application/outreach/campaigns/remove-do-not-contact.use-case';
import { BearerAuthGuard, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { UserPathDto } from '../todo/task.dto';
import { DoNotContactEntryDto, DoNotContactPathDto, DoNotContactRequestDto } from './do-not-contact.dto';
import { RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

@ApiTags('do-not-contact')
@ApiErrors(400)
@RequiredScope('campaigns:read', 'campaigns:write')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/do-not-contact')
export class DoNotContactController {
  constructor(
    private readonly listEntries: ListDoNotContactUseCase,
    private readonly addEntry: AddDoNotContactUseCase,
    private readonly removeEntry: RemoveDoNotContactUseCase,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listDoNotContactEntries',
    summary: 'Emails and LinkedIn profiles no campaign of the user may reach, newest first',
    description: 'Every entry, in canonical form; no campaign of the user reaches a listed address or profile.',
  })
  @ApiOkResponse({ type: [DoNotContactEntryDto], description: 'The entries' })
  async list(@Param() path: UserPathDto): Promise<DoNotContactEntryDto[]> {
    return (await this.listEntries.execute(path)).map((entry) => DoNotContactEntryDto.of(entry));
  }

  @Post()
  @ApiOperation({
    operationId: 'addDoNotContactEntry',
    summary: 'Add an email address or a LinkedIn profile URL',
    description: 'Idempotent: a value already listed (in any spelling) answers the existing entry.',
  })
  @ApiCreatedResponse({ type: DoNotContactEntryDto, description: 'The entry, added (or the one already there)' })
  @ApiErrors(413)
  async add(@Param() path: UserPathDto, @Body() body: DoNotContactRequestDto): Promise<DoNotContactEntryDto> {
    return DoNotContactEntryDto.of(await this.addEntry.execute({ userId: path.userId, value: body.value }));
  }

  @Delete(':entryId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteDoNotContactEntry',
    summary: 'Remove an entry',
    description: 'Campaigns may reach the address or profile again.',
  })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors(404)
  async remove(@Param() path: DoNotContactPathDto): Promise<void> {
    await this.removeEntry.execute(path);
  }
}
