import type { ToolArguments } from './tool-call-validation';

/** A call as a product's words name it: the tool and its arguments. */
export interface WordedCall {
  readonly tool: string;
  readonly arguments: ToolArguments;
}

/**
 * What a product's tools say in the person's words, handed to the shared core by the
 * product's toolbox (Toolbox.words) so that the core speaks none of them: the todo product's
 * are in src/application/todo/todo-words.ts.
 */
export interface ToolWords {
  /** One call as a question names it ("complete task 3", "update 'rent'"): each change of a bulk change. */
  callInWords(call: WordedCall): string;
  /** What "yes" to a stored call acts on, one item each, in the order the question showed them (a deletion: each task's title). */
  confirmationItems(call: WordedCall): string[];
  /** What a successful call did, in one sentence of the server's own; null when its result does not say enough. */
  resultSentence(call: { readonly tool: string; readonly result?: unknown }): string | null;
  /** The tools' error codes after which the right answer is a question to the person (which one? which task?). */
  readonly clarifyingErrorCodes: readonly string[];
  /** The label of the box a person ticks, in an MCP client's form, to let a call act on `count` things ("Yes, delete 3 tasks"). */
  confirmLabel(tool: string, count: number): string;
}

/** The words of no tools: for a model call that offers none (a summary), where nothing of a tool is said. */
export const NO_TOOL_WORDS: ToolWords = {
  callInWords: (call) => call.tool,
  confirmationItems: (call) => [call.tool],
  resultSentence: () => null,
  clarifyingErrorCodes: [],
  confirmLabel: () => 'Yes',
};
