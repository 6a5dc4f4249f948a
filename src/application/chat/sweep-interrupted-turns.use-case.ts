import { Injectable } from '@nestjs/common';
import { INTERRUPTED_ANSWER } from '../../domain/chat/conversation';
import { Clock } from '../shared/ports/clock.port';
import { TodoTools } from '../todo/tools/todo-tools';
import { AgentSettings } from '../agent/agent-settings';
import { InterruptedTurnStore } from './ports/interrupted-turn-store.port';
import { Logger } from '../shared/ports/logger.port';

export interface ChatSweepReport {
  /** Tool calls whose effect is there: recorded `succeeded`, with the evidence. */
  readonly succeeded: number;
  /** Tool calls not provably done: recorded `unknown`, for a person to review. */
  readonly unknown: number;
  /** Turns given the interrupted answer. */
  readonly answered: number;
}

const BATCH = 50;

/**
 * Settles what chat turns and MCP tool calls cut off by a crash (or a kill) left behind,
 * once no live turn can still own it: a live turn ends within its budget, so anything older
 * than that budget twice over is a leftover (the second budget covers a turn's last
 * statements on a busy database, and clocks that differ between servers).
 * - A tool call with a pending audit row and no outcome gets its outcome row: `succeeded`
 *   where the tasks show its effect, else `unknown`. Nothing is run again.
 * - A turn that never stored its answer gets one saying it was interrupted (status
 *   `interrupted`), in the answer's place right after the person's message, once its tool
 *   calls are settled; the conversation alternates again.
 */
@Injectable()
export class SweepInterruptedTurnsUseCase {
  private readonly logger: Logger;

  constructor(
    private readonly store: InterruptedTurnStore,
    private readonly settings: AgentSettings,
    private readonly clock: Clock,
    logger: Logger,
    private readonly tools: TodoTools = TodoTools.builtIn,
  ) {
    this.logger = logger.withContext(SweepInterruptedTurnsUseCase.name);
  }

  async run(): Promise<ChatSweepReport> {
    const { turnTimeoutMs, toolTimeoutMs } = this.settings.limits;
    const startedBefore = new Date(this.clock.now().getTime() - 2 * turnTimeoutMs);
    let succeeded = 0;
    let unknown = 0;
    let afterSeq = 0;
    for (;;) {
      const calls = await this.store.unsettledToolCalls({ startedBefore, afterSeq, limit: BATCH });
      for (const call of calls) {
        const outcome = await this.store.settleToolCall(call, (evidence) =>
          this.tools.settle({ tool: call.entry.tool, arguments: call.entry.arguments, startedAt: call.startedAt }, evidence, toolTimeoutMs),
        );
        if (outcome?.status === 'succeeded') succeeded++;
        if (outcome?.status === 'unknown') unknown++;
      }
      if (calls.length < BATCH) break;
      afterSeq = calls[calls.length - 1].pendingSeq;
    }
    let answered = 0;
    for (;;) {
      const count = await this.store.answerInterruptedTurns({
        startedBefore,
        content: INTERRUPTED_ANSWER,
        now: this.clock.now(),
        limit: BATCH,
      });
      answered += count;
      if (count < BATCH) break;
    }
    if (succeeded + unknown + answered > 0) {
      this.logger.info({ msg: 'settled chat turns cut off before they finished', toolCalls: { succeeded, unknown }, answered });
    }
    return { succeeded, unknown, answered };
  }
}
