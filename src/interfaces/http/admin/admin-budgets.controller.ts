import { Body, Controller, Get, HttpCode, Param, Put, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetUserBudgetUseCase } from '../../../application/budgets/get-user-budget.use-case';
import { SetUserBudgetUseCase } from '../../../application/budgets/set-user-budget.use-case';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { amountOf } from '../../../domain/agent/money';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { ApiError } from '../shared/api-error';
import { ApiErrors } from '../shared/api-errors.decorator';
import { RateLimit } from '../shared/rate-limit';
import { AdminGuard } from './admin.guard';
import { SetUserBudgetRequestDto, UserBudgetDto, UserBudgetPathDto } from './admin-budgets.dto';

/**
 * A person's monthly budget in money, for admins (docs/guarantees.md §11): their own budget,
 * the default, and this month's spend. A signed-in session only, as the other admin changes.
 */
@ApiTags('admin')
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/users/:userId/budget')
export class AdminBudgetsController {
  constructor(
    private readonly getBudget: GetUserBudgetUseCase,
    private readonly setBudget: SetUserBudgetUseCase,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'getUserBudget',
    summary: "A person's monthly budget and this month's spend",
    description:
      'Their own budget (null: CHAT_MONTHLY_BUDGET applies), the default, and this UTC month: spent (settled), reserved ' +
      '(calls under way), the budget in force and the share of it used, as the policy reads it.',
  })
  @ApiOkResponse({ type: UserBudgetDto, description: "Their budget and this month's spend" })
  @ApiErrors(400, 404)
  async get(@Param() path: UserBudgetPathDto): Promise<UserBudgetDto> {
    return UserBudgetDto.of(await this.getBudget.execute({ userId: path.userId }));
  }

  @Put()
  @HttpCode(200)
  @RateLimit('default')
  @ApiOperation({
    operationId: 'changeUserBudget',
    summary: "Set (or remove) a person's own monthly budget",
    description:
      "`{monthly}`: an amount in the prices' currency, or null to remove it. In force from their next model call, on every " +
      'server. Audited as set_budget (source admin). 400 BUDGET.NOT_PRICED when no model is priced (LLM_PRICES unset).',
  })
  @ApiOkResponse({ type: UserBudgetDto, description: 'Their budget, as now in force' })
  @ApiErrors(400, 404)
  async set(
    @Param() path: UserBudgetPathDto,
    @Body() body: SetUserBudgetRequestDto,
    @CurrentPrincipal() admin: Principal,
  ): Promise<UserBudgetDto> {
    const monthly = body.monthly === null ? null : amountOf(String(body.monthly));
    if (body.monthly !== null && monthly === null) {
      throw new ApiError(400, 'VALIDATION.FAILED', 'monthly must be an amount with at most 12 decimals, or null');
    }
    return UserBudgetDto.of(await this.setBudget.execute({ adminId: admin.userId, userId: path.userId, monthly }));
  }
}
