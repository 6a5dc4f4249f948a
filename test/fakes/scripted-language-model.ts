import { type Completion, type CompletionRequest, LanguageModel } from '../../src/application/agent/ports/language-model.port';

export type Script = (request: CompletionRequest, call: number) => Completion | Promise<Completion>;

/** A model whose answers a test writes; it records every request it was sent. */
export class ScriptedLanguageModel extends LanguageModel {
  readonly provider = 'scripted';
  readonly model = 'script-1';
  readonly requests: CompletionRequest[] = [];
  private script: Script = () => say('No script set.');

  use(script: Script): void {
    this.script = script;
    this.requests.length = 0;
  }

  async complete(request: CompletionRequest): Promise<Completion> {
    this.requests.push(request);
    return this.script(request, this.requests.length);
  }
}

const usage = { promptTokens: 10, completionTokens: 5 };

export function say(text: string): Completion {
  return { text, toolCalls: [], usage, finishReason: 'stop' };
}

export function callTool(name: string, args: unknown, id = `call-${name}`): Completion {
  return {
    text: null,
    toolCalls: [{ id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }],
    usage,
    finishReason: 'tool_calls',
  };
}

/** True when the last message the model got is a tool result. */
export function answeringToolResult(request: CompletionRequest): boolean {
  return request.messages[request.messages.length - 1]?.role === 'tool';
}
