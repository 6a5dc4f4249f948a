import { CHANNEL_ERROR_CODES, ChannelError, type ChannelErrorCode } from '../../../domain/outreach/channel-errors';
import { z } from 'zod';
import { type Sql, selectRow, sql, type Statement } from '../../persistence/sql';

/**
 * Failures the sandbox can be told to simulate (rows in sandbox_faults): any ChannelError
 * code, or HANG_BEFORE / HANG_AFTER (no answer until the caller's deadline, before or after
 * the effect is recorded), or UNVERIFIABLE (accepted, but never found by its key).
 * SESSION_EXPIRED lasts until a fresh session is used; the others count down `remaining`.
 */
export type SandboxFault = ChannelErrorCode | 'HANG_BEFORE' | 'HANG_AFTER' | 'UNVERIFIABLE';
const SANDBOX_FAULTS = [...CHANNEL_ERROR_CODES, 'HANG_BEFORE', 'HANG_AFTER', 'UNVERIFIABLE'] as const satisfies readonly SandboxFault[];

const FAULT_AND_EFFECT_ROW = z.object({ code: z.enum(SANDBOX_FAULTS).nullable(), recorded: z.unknown() });

/** A call's effect as the sandbox records it: `INSERT INTO <table> (<columns>) SELECT <values> … <onConflict>`. */
export interface SandboxEffect<S extends z.ZodType> {
  readonly insert: Statement;
  readonly values: Statement;
  /** ON CONFLICT … RETURNING …: what the row of `row` reads back. */
  readonly onConflict: Statement;
  readonly row: S;
}

/** Faults the caller acts on after the call (the others are raised before it returns). */
export type LateFault = 'HANG_AFTER' | 'UNVERIFIABLE';

/**
 * A sandbox call, in one statement so it costs one round trip: takes the first fault set for
 * this target (or '*'), if any, and records the call's effect unless that fault stops it
 * (it is recorded with no fault, or with one of `recordedUnder`); then raises the fault,
 * unless it is one the caller acts on later (HANG_AFTER, UNVERIFIABLE). A call past its
 * deadline is refused before anything. @returns that late fault, if any, and what the
 * effect's insert returned, null when it was not recorded.
 */
export async function takeFaultAndRecord<S extends z.ZodType>(
  db: Sql,
  call: {
    channel: 'linkedin' | 'email';
    target: string;
    signal: AbortSignal;
    recordedUnder: readonly SandboxFault[];
    effect: SandboxEffect<S>;
  },
): Promise<{ fault: LateFault | null; recorded: z.output<S> | null }> {
  if (call.signal.aborted) throw new ChannelError('TIMEOUT', 'The deadline passed before the call', 'no');
  const { effect } = call;
  const row = await selectRow(
    db,
    sql`WITH fault AS (
          UPDATE sandbox_faults SET remaining = remaining - CASE WHEN code = 'SESSION_EXPIRED' THEN 0 ELSE 1 END
          WHERE id = (SELECT id FROM sandbox_faults WHERE channel = ${call.channel} AND target IN (${call.target}, '*') AND remaining > 0
                      ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
          RETURNING code),
        recorded AS (
          ${effect.insert} SELECT ${effect.values}
          WHERE NOT EXISTS (SELECT 1 FROM fault WHERE code <> ALL (${[...call.recordedUnder]}::text[]))
          ${effect.onConflict})
        SELECT (SELECT code FROM fault) AS code, (SELECT row_to_json(recorded) FROM recorded) AS recorded`,
    FAULT_AND_EFFECT_ROW,
  );
  const fault = row!.code;
  if (fault && fault !== 'HANG_AFTER' && fault !== 'UNVERIFIABLE') return raise(fault, call.signal);
  return { fault, recorded: row!.recorded === null ? null : effect.row.parse(row!.recorded) };
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
