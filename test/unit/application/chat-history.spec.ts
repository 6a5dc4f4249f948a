import { NO_ANSWER_YET, toAgentMessages } from '../../../src/application/chat/history';
import type { StoredMessage } from '../../../src/domain/chat/conversation';
import { INTERRUPTED_ANSWER } from '../../../src/domain/chat/conversation';

const message = (role: StoredMessage['role'], content: string, status: StoredMessage['status'] = null): StoredMessage => ({
  id: content,
  role,
  content,
  toolCalls: [],
  decisionType: role === 'assistant' ? 'RESPOND_ONLY' : null,
  status,
  createdAt: new Date('2026-11-22T09:00:00.000Z'),
});

describe(toAgentMessages.name, () => {
  it('replays an interrupted turn as its question and the interrupted answer, alternating', () => {
    const history = [
      message('user', 'add milk'),
      message('assistant', INTERRUPTED_ANSWER, 'interrupted'),
      message('user', 'what is left?'),
      message('assistant', 'Nothing.', 'completed'),
    ];
    expect(toAgentMessages(history).map((m) => [m.role, m.content])).toEqual([
      ['user', 'add milk'],
      ['assistant', INTERRUPTED_ANSWER],
      ['user', 'what is left?'],
      ['assistant', 'Nothing.'],
    ]);
  });

  it('marks a message with no answer yet, so the model never reads two messages in a row as one', () => {
    const history = [
      message('user', 'add milk'),
      message('user', 'add bread'),
      message('assistant', 'Added bread.', 'completed'),
      message('user', 'hi'),
    ];
    expect(toAgentMessages(history).map((m) => [m.role, m.content])).toEqual([
      ['user', 'add milk'],
      ['assistant', NO_ANSWER_YET],
      ['user', 'add bread'],
      ['assistant', 'Added bread.'],
      ['user', 'hi'],
      ['assistant', NO_ANSWER_YET],
    ]);
  });
});
