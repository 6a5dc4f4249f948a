import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { type InputRequestTaking, McpInputRequests, type OpenedInputRequest } from '../../../application/mcp/ports/mcp-input-requests.port';
import { run, selectRow, sql } from '../sql';

const TAKEN_ROW = z.object({ call: z.object({ arguments: z.unknown(), asked: z.string() }) });
const FOUND_ROW = z.object({ answered: z.boolean(), expired: z.boolean() });

/** McpInputRequests on `mcp_input_requests` (migration 1767830400000). */
@Injectable()
export class PostgresMcpInputRequests extends McpInputRequests {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  /** The call is kept exactly (not through jsonColumn, which redacts and bounds): they are what runs on "yes". */
  async open(request: OpenedInputRequest, now: Date): Promise<void> {
    await run(
      this.dataSource,
      sql`WITH expired AS (DELETE FROM mcp_input_requests WHERE user_id = ${request.userId} AND expires_at < ${now})
          INSERT INTO mcp_input_requests (id, user_id, created_at, expires_at, call)
          VALUES (${request.id}, ${request.userId}, ${now}, ${request.expiresAt}, ${JSON.stringify(request.call)})`,
    );
  }

  async take(id: string, userId: string, now: Date): Promise<InputRequestTaking> {
    const taken = await selectRow(
      this.dataSource,
      sql`UPDATE mcp_input_requests SET answered_at = ${now}
          WHERE id = ${id} AND user_id = ${userId} AND answered_at IS NULL AND expires_at > ${now}
          RETURNING call`,
      TAKEN_ROW,
    );
    if (taken) return { outcome: 'taken', call: { arguments: taken.call.arguments, asked: taken.call.asked } };
    // Only on the way to a refusal: which one, for the audit row and the client's error.
    const found = await selectRow(
      this.dataSource,
      sql`SELECT answered_at IS NOT NULL AS answered, expires_at <= ${now} AS expired
          FROM mcp_input_requests WHERE id = ${id} AND user_id = ${userId}`,
      FOUND_ROW,
    );
    if (!found) return { outcome: 'unknown' };
    return { outcome: found.answered ? 'already-answered' : 'expired' };
  }
}
