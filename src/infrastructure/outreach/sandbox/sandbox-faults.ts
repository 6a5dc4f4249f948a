import { CHANNEL_ERROR_CODES, ChannelError, type ChannelErrorCode } from '../../../domain/outreach/channel-errors';
import { z } from 'zod';
import { type Sql, selectRow, sql } from '../../persistence/sql';

/**
 * Failures the sandbox can be told to simulate (rows in sandbox_faults): any ChannelError
 * code, or HANG_BEFORE / HANG_AFTER (no answer until the caller's deadline, before or after
 * the effect is recorded), or UNVERIFIABLE (accepted, but never found by its key).
 * SESSION_EXPIRED lasts until a fresh session is used; the others count down `remaining`.
 */
export type SandboxFault = ChannelErrorCode | 'HANG_BEFORE' | 'HANG_AFTER' | 'UNVERIFIABLE';
const SANDBOX_FAULTS = [...CHANNEL_ERROR_CODES, 'HANG_BEFORE', 'HANG_AFTER', 'UNVERIFIABLE'] as const satisfies readonly SandboxFault[];
const FAULT_ROW = z.object({ code: z.enum(SANDBOX_FAULTS) });

/** Takes the first fault set for this target (or '*'), if any. */
export async function takeFault(db: Sql, channel: 'linkedin' | 'email', target: string): Promise<SandboxFault | null> {
  const row = await selectRow(
    db,
    sql`UPDATE sandbox_faults SET remaining = remaining - CASE WHEN code = 'SESSION_EXPIRED' THEN 0 ELSE 1 END
        WHERE id = (SELECT id FROM sandbox_faults WHERE channel = ${channel} AND target IN (${target}, '*') AND remaining > 0
                    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING code`,
    FAULT_ROW,
  );
  return row?.code ?? null;
}

/** Throws the fault's ChannelError; hangs first for the HANG faults. */
export async function raise(fault: SandboxFault, signal: AbortSignal): Promise<never> {
  if (fault === 'HANG_BEFORE' || fault === 'HANG_AFTER' || fault === 'TIMEOUT') {
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
    throw new ChannelError('TIMEOUT', 'The sandbox did not answer before the deadline', 'maybe');
  }
  if (fault === 'UNVERIFIABLE') throw new Error('UNVERIFIABLE is not an error fault');
  throw new ChannelError(fault, `The sandbox simulated ${fault}`, 'no');
}
