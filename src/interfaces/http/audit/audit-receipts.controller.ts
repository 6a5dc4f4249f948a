import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditProofsUseCase } from '../../../application/audit/audit-proofs.use-case';
import { AuditReceiptsUseCase } from '../../../application/audit/audit-receipts.use-case';
import { AuditReader } from '../../../application/audit/ports/audit-reader.port';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { ConsistencyProofDto, ConsistencyProofQueryDto } from '../admin/admin-audit-proofs.dto';
import { BearerAuthGuard, CurrentPrincipal, OwnUserGuard } from '../guards/bearer-auth.guard';
import { ApiErrors } from '../shared/api-errors.decorator';
import { PAGE_LIMIT_DEFAULT } from '../shared/page-query.dto';
import { RateLimit } from '../shared/rate-limit';
import { UserPathDto } from '../todo/task.dto';
import {
  OwnAuditRowDto,
  OwnAuditRowPageDto,
  OwnAuditRowsQueryDto,
  PersonalReceiptQueryDto,
  ReceiptDto,
  ReceiptPathDto,
} from './receipt.dto';

/**
 * A person's receipts (docs/audit-log.md#receipts): their own audited calls, each provable with
 * the log's public key alone. A signed-in session (no token scope). Another person's row is
 * "not found", never "forbidden".
 */
@ApiTags('audit')
@RateLimit('api')
@UseGuards(BearerAuthGuard, OwnUserGuard)
@Controller('api/:userId/audit')
export class AuditReceiptsController {
  constructor(
    private readonly receipts: AuditReceiptsUseCase,
    private readonly reader: AuditReader,
    private readonly proofs: AuditProofsUseCase,
  ) {}

  @Get('receipts')
  @ApiOperation({
    operationId: 'listOwnAuditRows',
    summary: 'Your audited calls, newest first',
    description:
      'The audit rows you are the actor of (chat, MCP, outreach, REST, account changes): the sequence numbers to ask receipts for.',
  })
  @ApiOkResponse({ type: OwnAuditRowPageDto, description: 'One page of your rows' })
  @ApiErrors(400)
  async list(@Param() path: UserPathDto, @Query() query: OwnAuditRowsQueryDto): Promise<OwnAuditRowPageDto> {
    const page = await this.reader.list({ actorId: path.userId }, query.limit ?? PAGE_LIMIT_DEFAULT, query.cursor ?? null);
    return { items: page.items.map((row) => OwnAuditRowDto.of(row)), nextCursor: page.nextCursor };
  }

  @Get('receipts/:seq')
  @ApiOperation({
    operationId: 'getOwnAuditReceipt',
    summary: 'A receipt for one of your audited calls',
    description:
      "bridle-receipt/v1: the row's public fields and commitment, its link, leaf, RFC 9162 inclusion proof and the signed " +
      'checkpoint, checked offline by `node verifier/bridle-audit-verify.mjs --receipt <file> --public-key <key>`. ' +
      'personal=true adds the salt and your personal fields, which open the commitment. 409 AUDIT.RECEIPT_NOT_YET while ' +
      'no checkpoint covers the row. Audited (account.audit_receipt).',
  })
  @ApiOkResponse({ type: ReceiptDto, description: 'The receipt' })
  @ApiErrors(400, 404, 409)
  async receipt(
    @Param() path: ReceiptPathDto,
    @Query() query: PersonalReceiptQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<ReceiptDto> {
    return this.receipts.forPerson({
      userId: principal.userId,
      seq: path.seq,
      treeSize: query.treeSize,
      personal: query.personal === 'true',
    });
  }

  @Get('consistency')
  @ApiOperation({
    operationId: 'getOwnAuditConsistencyProof',
    summary: "Carry a receipt forward: prove a later checkpoint's log extends its checkpoint's",
    description: 'RFC 9162 consistency proof between two checkpoints (tree sizes), with both signed notes. Hashes only.',
  })
  @ApiOkResponse({ type: ConsistencyProofDto, description: 'The proof and both signed notes' })
  @ApiErrors(400, 409)
  async consistency(@Param() _path: UserPathDto, @Query() query: ConsistencyProofQueryDto): Promise<ConsistencyProofDto> {
    return ConsistencyProofDto.of(await this.proofs.consistency(query.from, query.to));
  }
}
