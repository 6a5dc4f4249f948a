import { NO_ANSWER_YET, readTranscript, toAgentMessages, transcriptToSummarize, windowTurns } from '../../../src/application/chat/history';
import type { HistoryMessage } from '../../../src/application/chat/ports/conversation-store.port';
import type { StoredMessage, ToolCallRecord } from '../../../src/domain/chat/conversation';
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

const task = (number: number, title: string, completed = false) => ({ number, title, description: null, priority: 'medium', completed });

const call = (tool: string, outcome: Pick<ToolCallRecord, 'success' | 'result' | 'error'>): ToolCallRecord => ({
  id: `call-${tool}`,
  tool,
  arguments: {},
  durationMs: 3,
  ...outcome,
});

/** A person's message and its answer, at `seq` and `seq + 1`. */
const exchange = (seq: number, asked: string, answer: string, toolCalls: ToolCallRecord[] = []): HistoryMessage[] => [
  { ...message('user', asked), seq },
  { ...message('assistant', answer, 'completed'), toolCalls, seq: seq + 1 },
];

describe(transcriptToSummarize.name, () => {
  it('says what the tool calls changed on a Done line, by number and title, and what the person asked, one line each', () => {
    const history = [
      ...exchange(1, 'add milk\nand   bread', 'Added.', [
        call('add_task', { success: true, result: { task: task(1, 'milk') } }),
        call('add_task', { success: true, result: { task: task(2, 'bread') } }),
      ]),
      ...exchange(3, 'finish task 1 and 2', 'Done.', [
        call('complete_task', { success: true, result: { task: task(1, 'milk', true), alreadyCompleted: false } }),
        call('complete_task', { success: true, result: { task: task(2, 'bread', true), alreadyCompleted: true } }),
      ]),
      ...exchange(5, 'rename task 2 to rye bread', 'Renamed.', [
        call('update_task', { success: true, result: { task: task(2, 'rye bread'), previousTitle: 'bread', changed: ['title'] } }),
      ]),
      ...exchange(7, 'add a task', 'I could not add it.', [
        call('add_task', { success: false, error: { code: 'TASK_LIMIT_REACHED', message: 'Too many tasks' } }),
      ]),
    ];

    const sut = transcriptToSummarize('Earlier things.', windowTurns(history));

    expect(sut.split('\n')).toEqual([
      'Summary so far: Earlier things.',
      '',
      'Person: add milk and bread',
      'Done: added task 1 "milk" and added task 2 "bread".',
      'Assistant: Added.',
      'Person: finish task 1 and 2',
      'Done: completed task 1 "milk".',
      'Assistant: Done.',
      'Person: rename task 2 to rye bread',
      'Done: renamed task 2 from "bread" to "rye bread".',
      'Assistant: Renamed.',
      'Person: add a task',
      '(add_task failed: {"code":"TASK_LIMIT_REACHED","message":"Too many tasks"})',
      'Assistant: I could not add it.',
    ]);
    expect(readTranscript(sut)).toEqual({
      previous: 'Earlier things.',
      folded: {
        asked: ['add milk and bread', 'finish task 1 and 2', 'rename task 2 to rye bread', 'add a task'],
        done: [
          { kind: 'added', number: 1, title: 'milk' },
          { kind: 'added', number: 2, title: 'bread' },
          { kind: 'completed', number: 1, title: 'milk' },
          { kind: 'renamed', number: 2, previousTitle: 'bread', title: 'rye bread' },
        ],
      },
    });
  });

  it('names every task a deletion took from its stored result, even when the replayed result is cut', () => {
    const deleted = Array.from({ length: 60 }, (_, i) => task(i + 1, `errand number ${i + 1} for the week`));
    const history = exchange(1, 'yes delete', 'Deleted 60 tasks.', [call('delete_task', { success: true, result: { deleted } })]);
    const turns = windowTurns(history);

    const sut = readTranscript(transcriptToSummarize(null, turns));

    expect(turns[0].messages.find((m) => m.role === 'tool')?.content).toMatch(/… \(cut: \d+ characters\)$/);
    expect(sut.folded.done).toEqual(deleted.map(({ number, title }) => ({ kind: 'deleted', number, title })));
    expect(sut.previous).toBeNull();
  });
});
