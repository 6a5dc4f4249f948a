import type { ChatEvent, Message, PendingConfirmation, ToolCall } from '../../api';

/** One bubble of the conversation as the console shows it. */
export interface ChatItem {
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  /** Tools called and not yet answered. */
  readonly running: readonly string[];
  /** What the answer asks the person to say yes to, as the server stored it (only ever on the last one). */
  readonly confirmation: PendingConfirmation | null;
  readonly streaming: boolean;
  readonly failed: boolean;
  readonly stopped?: boolean;
  readonly warning?: string | null;
}

let ids = 0;
const localId = () => `local-${++ids}`;

/** `pending`: the conversation's open question, drawn on the newest answer (the one that asked it). */
export function fromHistory(messages: readonly Message[], pending: PendingConfirmation | null): ChatItem[] {
  return messages.map((message, index) => ({
    id: message.id,
    role: message.role,
    text: message.content,
    toolCalls: message.toolCalls,
    running: [],
    confirmation: index === messages.length - 1 && message.role === 'assistant' ? pending : null,
    streaming: false,
    failed: message.status === 'error' || message.status === 'interrupted',
  }));
}

/** What the person sent, and the answer that starts streaming under it. */
export function turn(message: string): ChatItem[] {
  return [
    { id: localId(), role: 'user', text: message, toolCalls: [], running: [], confirmation: null, streaming: false, failed: false },
    { id: localId(), role: 'assistant', text: '', toolCalls: [], running: [], confirmation: null, streaming: true, failed: false },
  ];
}

/** The answer being streamed (`item`) with one more event of its stream. */
export function withEvent(item: ChatItem, event: ChatEvent): ChatItem {
  switch (event.event) {
    case 'tool_call':
      return { ...item, running: [...item.running, event.data.tool] };
    case 'tool_result': {
      const call: ToolCall = event.data;
      const at = item.running.indexOf(call.tool);
      return { ...item, running: item.running.filter((_, i) => i !== at), toolCalls: [...item.toolCalls, call] };
    }
    case 'delta':
      return { ...item, text: item.text + event.data.text };
    case 'replace':
      // The model's words failed the server's check: the answer is this sentence instead.
      return { ...item, text: event.data.text };
    case 'confirmation_required':
      return { ...item, confirmation: event.data.pendingConfirmation };
    case 'error':
      return { ...item, failed: true, text: event.data.message };
    case 'done':
      return {
        ...item,
        text: item.failed || item.text ? item.text : event.data.response,
        warning: event.data.warning,
        streaming: false,
      };
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
}
