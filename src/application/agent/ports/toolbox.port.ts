import type { ToolErrorWording } from '../../../domain/agent/failures';
import type { ToolArguments } from '../../../domain/agent/tool-call-validation';
import type { ToolDefinition } from '../../../domain/agent/tools';
import type { ToolWords } from '../../../domain/agent/tool-words';
import type { CallTargets } from '../../../domain/policy/policy';
import type { ToolResult } from './tool-gateway.port';

/** What a dry run of a destructive tool answers: the exact call to confirm, and how to ask. */
export interface DryRunResult {
  readonly prompt: string;
  readonly arguments: ToolArguments;
  readonly preview: unknown;
  /**
   * Whether the policy in force puts the call to the person (set by the tools server,
   * ExecuteToolCallUseCase); `false`: it would run unasked. Absent (a toolbox's own answer)
   * reads as asked: nothing destructive runs on a guess.
   */
  readonly asksThePerson?: boolean;
}

/**
 * A call resolved against the data as it is now: what it will act on (the policy decides on
 * that, CallTargets), and the toolbox's own plan of exactly that, which `run` carries out
 * without resolving anything again: what was decided is what runs.
 */
export interface ResolvedCall {
  readonly tool: string;
  readonly targets: CallTargets;
  /** Opaque outside the toolbox that made it. */
  readonly plan: unknown;
}

/** A call resolved, or why it cannot be (it names no task there is, or more than one): then nothing would run. */
export type Resolution = { readonly ok: true; readonly call: ResolvedCall } | (ToolResult & { readonly ok: false });

/** The tools of one product, run for one user. Served over MCP by the interfaces layer. */
export abstract class Toolbox {
  abstract readonly definitions: readonly ToolDefinition[];
  /** How this product's own error codes read to the person, and what they count as. */
  abstract readonly errorWording: ToolErrorWording;
  /**
   * What the core says of this product's calls in the person's words: a bulk change's
   * question and items, what "yes" acts on, a result's sentence, the errors that ask back,
   * the label of an MCP client's confirmation form.
   */
  abstract readonly words: ToolWords;
  /**
   * Resolves a call's words (a number, a title's words, a scope, the tasks a confirmation
   * showed) to what it will act on now: the one resolution the policy, the person's question
   * (a dry run) and the run itself all read. Arguments are already validated against the
   * tool's schema.
   */
  abstract resolve(tool: string, args: ToolArguments, userId: string): Promise<Resolution>;
  /** Runs a resolved call as resolved, or in a dry run describes it (the question to ask) and changes nothing. */
  abstract run(call: ResolvedCall, userId: string, options: { dryRun: boolean }): Promise<ToolResult>;
  /**
   * What the person could say in the chat to ask for this call themselves ("delete task 3"),
   * told to a caller that cannot ask them; null when there is no such sentence.
   */
  chatRequestFor(_tool: string, _args: ToolArguments): string | null {
    return null;
  }
}
