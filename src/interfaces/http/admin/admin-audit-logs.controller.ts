import { Controller, Get, Param, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuditProofsUseCase } from '../../../application/audit/audit-proofs.use-case';
import { AuditReceiptsUseCase } from '../../../application/audit/audit-receipts.use-case';
import { ReceiptDto, ReceiptQueryDto } from '../audit/receipt.dto';
import { ExportAuditCheckpointsUseCase } from '../../../application/audit/export-audit-checkpoints.use-case';
import { ExportAuditLogUseCase } from '../../../application/audit/export-audit-log.use-case';
import { GetAuditLogUseCase } from '../../../application/audit/get-audit-log.use-case';
import { ListAuditLogsUseCase } from '../../../application/audit/list-audit-logs.use-case';
import { VerifyAuditChainUseCase } from '../../../application/audit/verify-audit-chain.use-case';
import type { Principal } from '../../../application/identity/ports/access-token-service.port';
import { BearerAuthGuard, CurrentPrincipal } from '../guards/bearer-auth.guard';
import { toDigestLine } from '../../../domain/audit/checkpoint';
import { ApiErrors } from '../shared/api-errors.decorator';
import { AdminGuard } from './admin.guard';
import { AuditRowDto, AuditRowPageDto, ChainVerificationDto } from './admin-audit-logs.dto';
import { AuditFilterQueryDto, AuditPageQueryDto, AuditSeqPathDto, toAuditFilter, VerifyQueryDto } from './admin-query.dto';
import { ConsistencyProofDto, ConsistencyProofQueryDto, InclusionProofDto, InclusionProofQueryDto } from './admin-audit-proofs.dto';
import { writeNdjson } from './ndjson';
import { PAGE_LIMIT_DEFAULT } from '../shared/page-query.dto';
import { RequiredScope } from '../guards/required-scope';
import { RateLimit } from '../shared/rate-limit';

/** The audit log, for admins. Each read appends an audit row of its own (source admin). */
@ApiTags('admin')
@RequiredScope('audit:read')
@RateLimit('api')
@UseGuards(BearerAuthGuard, AdminGuard)
@Controller('admin/audit-logs')
export class AdminAuditLogsController {
  constructor(
    private readonly listLogs: ListAuditLogsUseCase,
    private readonly getLog: GetAuditLogUseCase,
    private readonly exportLog: ExportAuditLogUseCase,
    private readonly verifyChain: VerifyAuditChainUseCase,
    private readonly exportCheckpoints: ExportAuditCheckpointsUseCase,
    private readonly proofs: AuditProofsUseCase,
    private readonly receipts: AuditReceiptsUseCase,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listAuditRows',
    summary: 'Audit rows, newest first',
    description: 'Every tool call and outreach action, and every admin read. Pages stay stable while rows are appended.',
  })
  @ApiOkResponse({ type: AuditRowPageDto, description: 'One page of rows' })
  @ApiErrors(400)
  async list(@Query() query: AuditPageQueryDto, @CurrentPrincipal() admin: Principal): Promise<AuditRowPageDto> {
    const page = await this.listLogs.execute({
      adminId: admin.userId,
      filter: toAuditFilter(query),
      limit: query.limit ?? PAGE_LIMIT_DEFAULT,
      cursor: query.cursor ?? null,
    });
    return { items: page.items.map((row) => AuditRowDto.of(row)), nextCursor: page.nextCursor };
  }

  // Before ':seq', so that Express does not take 'export', 'verify', 'checkpoints' and 'proofs' for sequence numbers.
  @Get('export')
  @ApiOperation({
    operationId: 'exportAuditRows',
    summary: 'The filtered audit rows as NDJSON',
    description:
      'One AuditRowDto per line, oldest first, up to the newest row when the export began; streamed as the client ' +
      'reads it. The export is audited before the first row is read, and its outcome (row count) when it ends.',
  })
  @ApiOkResponse({
    description: 'application/x-ndjson: one AuditRowDto per line',
    content: { 'application/x-ndjson': { schema: { type: 'string' } } },
  })
  @ApiErrors(400)
  async export(@Query() query: AuditFilterQueryDto, @CurrentPrincipal() admin: Principal, @Res() res: Response): Promise<void> {
    const rows = this.exportLog.execute({ adminId: admin.userId, filter: toAuditFilter(query) });
    await writeNdjson(res, rows, (row) => AuditRowDto.of(row));
  }

  @Get('verify')
  @ApiOperation({
    operationId: 'verifyAuditChain',
    summary: 'Check the hash chain',
    description:
      'Seals what is waiting, then checks the newest signed checkpoint (signed by the configured key, its link ' +
      'still there with the signed hash) and walks only the links after it, each of which must carry the previous ' +
      "link's hash and hash to its row's content. With full=true it walks the whole chain from the first link (64 " +
      'zeros before it) and checks every checkpoint. A row altered or deleted by going around the database triggers, ' +
      'or slipped in without being queued for the sealer, makes verified false and names the first bad row; a ' +
      'checkpoint that does not hold is named in firstBadCheckpoint. unsealedRows counts the tail another process ' +
      'was still sealing. A cut tail is found by checking an exported digest (GET /admin/audit-logs/checkpoints) ' +
      'with `node dist/admin.js audit-verify --against <file>`.',
  })
  @ApiQuery({ name: 'full', required: false, enum: ['true', 'false'], description: 'Walk the whole chain and check every checkpoint' })
  @ApiOkResponse({ type: ChainVerificationDto, description: 'What the check found' })
  @ApiErrors(400)
  async verify(@Query() query: VerifyQueryDto, @CurrentPrincipal() admin: Principal): Promise<ChainVerificationDto> {
    return ChainVerificationDto.of(await this.verifyChain.execute({ adminId: admin.userId, full: query.full === 'true' }));
  }

  @Get('checkpoints')
  @ApiOperation({
    operationId: 'exportAuditCheckpoints',
    summary: 'The signed checkpoints as NDJSON digest lines',
    description:
      'One JSON object per line, oldest first: {position, seq, headHash, time, keyId, signature, publicKey}, the ' +
      'Ed25519 signature (base64) of `bridle-audit-checkpoint:v1\\n<position>\\n<seq>\\n<headHash>\\n<time>` by the ' +
      'public key (SPKI DER, base64). Keep the file outside the database. Each signature can be checked ' +
      'with the public key alone (`node dist/admin.js audit-check-digest <file>`), and the file against the ' +
      'database later (`audit-verify --against <file>`), which finds a rewritten past or a cut tail. Audited like ' +
      'the rows export.',
  })
  @ApiOkResponse({
    description: 'application/x-ndjson: one digest line per checkpoint',
    content: { 'application/x-ndjson': { schema: { type: 'string' } } },
  })
  async checkpoints(@CurrentPrincipal() admin: Principal, @Res() res: Response): Promise<void> {
    await writeNdjson(res, this.exportCheckpoints.execute({ adminId: admin.userId }), (checkpoint) => toDigestLine(checkpoint));
  }

  @Get('proofs/inclusion')
  @ApiOperation({
    operationId: 'getAuditInclusionProof',
    summary: 'Prove that a row is in the log a checkpoint signed',
    description:
      "RFC 9162 inclusion proof of the link at `position` (leaf position − 1, its data the link's hash) in the Merkle " +
      "tree of a checkpoint (`treeSize`, the newest checkpoint's by default), with the checkpoint as a C2SP signed note. " +
      'Stays valid after later appends: check it against a later checkpoint with a consistency proof, or ask again with ' +
      "that checkpoint's treeSize. 400 names the field: a treeSize no checkpoint has, a position beyond it.",
  })
  @ApiOkResponse({ type: InclusionProofDto, description: 'The proof and the signed checkpoint' })
  @ApiErrors(400, 409)
  async inclusionProof(@Query() query: InclusionProofQueryDto, @CurrentPrincipal() admin: Principal): Promise<InclusionProofDto> {
    return InclusionProofDto.of(
      await this.proofs.inclusionFor({ adminId: admin.userId, position: query.position, treeSize: query.treeSize }),
    );
  }

  @Get('proofs/consistency')
  @ApiOperation({
    operationId: 'getAuditConsistencyProof',
    summary: "Prove that a checkpoint's log extends an older one's",
    description:
      "RFC 9162 consistency proof that the tree of checkpoint `from` is a prefix of checkpoint `to`'s: the log was only " +
      'appended to in between. Both must be tree sizes of checkpoints, from ≤ to; 400 names the field otherwise.',
  })
  @ApiOkResponse({ type: ConsistencyProofDto, description: 'The proof and both signed checkpoints' })
  @ApiErrors(400, 409)
  async consistencyProof(@Query() query: ConsistencyProofQueryDto, @CurrentPrincipal() admin: Principal): Promise<ConsistencyProofDto> {
    return ConsistencyProofDto.of(await this.proofs.consistencyFor({ adminId: admin.userId, from: query.from, to: query.to }));
  }

  @Get(':seq/receipt')
  @ApiOperation({
    operationId: 'getAuditReceipt',
    summary: "A row's receipt",
    description:
      'bridle-receipt/v1 for any row (without its personal fields): link, leaf, inclusion proof and signed checkpoint, ' +
      'checked offline by verifier/bridle-audit-verify.mjs. 409 AUDIT.RECEIPT_NOT_YET while no checkpoint covers it. Audited.',
  })
  @ApiOkResponse({ type: ReceiptDto, description: 'The receipt' })
  @ApiErrors(400, 404, 409)
  async receipt(
    @Param() path: AuditSeqPathDto,
    @Query() query: ReceiptQueryDto,
    @CurrentPrincipal() admin: Principal,
  ): Promise<ReceiptDto> {
    return this.receipts.forAdmin({ adminId: admin.userId, seq: path.seq, treeSize: query.treeSize });
  }

  @Get(':seq')
  @ApiOperation({
    operationId: 'getAuditRow',
    summary: 'One audit row',
    description: 'The row with this sequence number, arguments and result with their secrets masked.',
  })
  @ApiOkResponse({ type: AuditRowDto, description: 'The row' })
  @ApiErrors(400, 404)
  async get(@Param() path: AuditSeqPathDto, @CurrentPrincipal() admin: Principal): Promise<AuditRowDto> {
    return AuditRowDto.of(await this.getLog.execute({ adminId: admin.userId, seq: path.seq }));
  }
}
