import request from 'supertest';
import { DataSource } from 'typeorm';
import type { CompletionRequest } from '../../src/application/agent/ports/language-model.port';
import { CONVERSATION_SUMMARY_PROMPT, SUMMARY_MAX_CHARS } from '../../src/application/chat/conversation-summary.prompt';
import { estimatedFixedTokens, estimatedTokens } from '../../src/domain/chat/context-window';
import { OfflineLanguageModel } from '../../src/infrastructure/llm/offline/offline-language-model';
import { signUpAdmin } from '../support/admins';
import { useTestApp } from '../support/test-app';
import { ScriptedLanguageModel } from '../fakes/scripted-language-model';

/** The offline model, every request it gets recorded. */
class RecordingOfflineModel extends ScriptedLanguageModel {
  readonly seen: CompletionRequest[] = [];
  private readonly offline = new OfflineLanguageModel();

  constructor() {
    super();
    this.use((req) => {
      this.seen.push(req);
      return this.offline.complete(req);
    });
  }
}

/** Every tool result follows the assistant message that called it, and every call gets its result. */
function orphansIn(messages: CompletionRequest['messages']): string[] {
  const problems: string[] = [];
  let open: string[] = [];
  for (const [i, message] of messages.entries()) {
    if (message.role === 'tool') {
      if (!open.includes(message.toolCallId)) problems.push(`message ${i}: a result of ${message.toolCallId} without its call`);
      open = open.filter((id) => id !== message.toolCallId);
      continue;
    }
    if (open.length > 0) problems.push(`message ${i}: calls ${open.join(', ')} without their results`);
    open = message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [];
  }
  if (open.length > 0) problems.push(`the end: calls ${open.join(', ')} without their results`);
  return problems;
}

describe('a 300-turn conversation', () => {
  const WINDOW = 3_000;
  const model = new RecordingOfflineModel();
  const sut = useTestApp({
    env: { AGENT_CONTEXT_TOKENS: String(WINDOW), CHAT_RATE_LIMIT_PER_MINUTE: '100000' },
    languageModel: model,
    startTimeout: 120_000,
  });
  const me = sut.user();

  it('stays within the token window, summarises the older part, uses the summaries and never orphans a tool message', async () => {
    const cycle = (k: number) => [
      `add errand ${k}`,
      `add chore ${k}`,
      "what's left?",
      'finish task 1',
      'what have I done?',
      'delete everything',
      'yes delete',
      'hello',
    ];
    const messages = Array.from({ length: 38 }, (_, k) => cycle(k + 1))
      .flat()
      .slice(0, 300);
    let conversationId: string | undefined;
    const statuses = new Set<string>();
    for (const message of messages) {
      const res = await request(sut.http).post(`/api/${me.userId}/chat`).set(me.auth).send({ message, conversationId });
      expect(res.status).toBe(200);
      conversationId = res.body.conversationId;
      statuses.add(res.body.status);
    }
    expect([...statuses]).toEqual(['completed']);

    // Every request, summaries' included, within the window: by the window's own estimate
    // (tools counted) and by the token count the offline model reports.
    expect(model.seen.length).toBeGreaterThan(300);
    const over = model.seen.filter((req) => estimatedFixedTokens(req.systemPrompt, req.tools) + estimatedTokens(req.messages) > WINDOW);
    expect(over).toEqual([]);
    const chat = model.seen.filter((req) => req.systemPrompt !== CONVERSATION_SUMMARY_PROMPT);
    for (const req of chat) expect(orphansIn(req.messages)).toEqual([]);

    // Summaries were made, stored with their decision and range, each covering more.
    const summaries = await sut.app
      .get(DataSource)
      .query<{ id: string; content: string; last_seq: string; messages: number; decision_id: string }[]>(
        'SELECT id, content, last_seq, messages, decision_id FROM conversation_summaries WHERE conversation_id = $1 ORDER BY last_seq',
        [conversationId],
      );
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    expect(model.seen.filter((req) => req.systemPrompt === CONVERSATION_SUMMARY_PROMPT)).toHaveLength(summaries.length);
    for (const [i, summary] of summaries.entries()) {
      if (i > 0) {
        expect(Number(summary.last_seq)).toBeGreaterThan(Number(summaries[i - 1].last_seq));
        expect(summary.messages).toBeGreaterThan(summaries[i - 1].messages);
      }
      // …and read by the turns after it.
      expect(chat.some((req) => req.systemPrompt.includes(summary.content))).toBe(true);
    }
    // The model never reads a message a summary already covers: the window starts after it.
    // The latest summary counts every message of the person's it covers: each one folded in the last whole.
    const [latest] = summaries.slice(-1);
    expect(latest.content).toMatch(new RegExp(`^The person sent ${latest.messages / 2} messages`));
    // "delete everything", then "yes delete": the confirmed deletions are named too.
    expect(latest.content).toMatch(/ Deleted \d+ tasks; the latest: task \d+ "(Errand|Chore) \d+"/);

    // An admin sees what the model was told in the last turn.
    const admin = await signUpAdmin(sut);
    const [{ id: lastDecision }] = await sut.app
      .get(DataSource)
      .query<{ id: string }[]>('SELECT id FROM decision_logs WHERE conversation_id = $1 ORDER BY created_at DESC LIMIT 1', [
        conversationId,
      ]);
    const decision = await request(sut.http).get(`/admin/decisions/${lastDecision}`).set(admin.auth).expect(200);
    expect(decision.body.context).toMatchObject({
      summaryId: latest.id,
      summary: latest.content,
      firstSeq: expect.any(Number),
      messages: expect.any(Number),
    });
    expect(decision.body.context.firstSeq).toBeGreaterThan(Number(latest.last_seq));
    expect(decision.body.context.estimatedTokens).toBeLessThanOrEqual(WINDOW);
  }, 600_000);
});

/** Words, in the sense a cut would break: runs of letters and digits. */
const wordsOf = (text: string) => text.match(/[\p{L}\p{N}]+/gu) ?? [];

/** The wording of an offline summary's own, outside what it quotes. */
const SUMMARY_WORDING = new Set(
  wordsOf(
    'The person sent message messages; the latest: Added Completed Renamed Changed Deleted task tasks from to and. Before that: Nothing was asked or done.',
  ),
);

describe('offline summaries of a 120-turn conversation', () => {
  // At most 20 stored messages a turn: a summary every few turns, each folding in the one before.
  const sut = useTestApp({ env: { AGENT_HISTORY_WINDOW: '20', CHAT_RATE_LIMIT_PER_MINUTE: '100000' }, startTimeout: 120_000 });
  const me = sut.user();

  it('says which tasks were added, completed and renamed, counts every message, and never cuts a word', async () => {
    // A new person's tasks are numbered from 1: errand k is task 2k - 1, chore k task 2k. Titles start with a capital.
    const messages = Array.from({ length: 30 }, (_, i) => {
      const k = i + 1;
      return [
        `add errand ${k}`,
        `add chore ${k} for the garden`,
        `finish task ${2 * k - 1}`,
        k % 3 === 0 ? `rename task ${2 * k} to tidy shed ${k}` : "what's left?",
      ];
    }).flat();
    let conversationId: string | undefined;
    /** Every title a task held, as the tool results said. */
    const titles = new Set<string>();
    for (const message of messages) {
      const res = await request(sut.http).post(`/api/${me.userId}/chat`).set(me.auth).send({ message, conversationId });
      expect({ status: res.status, turn: res.body.status }).toEqual({ status: 200, turn: 'completed' });
      conversationId = res.body.conversationId;
      for (const call of res.body.toolCalls as { result?: { task?: { title: string }; previousTitle?: string } }[]) {
        if (call.result?.task) titles.add(call.result.task.title);
        if (call.result?.previousTitle) titles.add(call.result.previousTitle);
      }
    }

    const summaries = await sut.app
      .get(DataSource)
      .query<{ content: string; messages: number }[]>(
        'SELECT content, messages FROM conversation_summaries WHERE conversation_id = $1 ORDER BY last_seq',
        [conversationId],
      );
    expect(summaries.length).toBeGreaterThanOrEqual(5);
    const [latest] = summaries.slice(-1);

    // It covers the first `covered` messages, folded in whole: every one counted, once.
    const covered = messages.slice(0, latest.messages / 2);
    const adds = covered.filter((message) => message.startsWith('add '));
    const finishes = covered.filter((message) => message.startsWith('finish '));
    const renames = covered.filter((message) => message.startsWith('rename '));
    expect(covered.length).toBeGreaterThan(100);
    expect(latest.content).toMatch(new RegExp(`^The person sent ${covered.length} messages; the latest: `));
    expect(latest.content.match(/The person sent/g)).toHaveLength(1);
    expect(latest.content.length).toBeLessThanOrEqual(SUMMARY_MAX_CHARS);

    // It names the latest tasks added, completed and renamed, by number and title.
    const lastErrand = Math.ceil(adds.length / 2);
    const lastFinished = finishes.length;
    const lastRenamed = 3 * renames.length;
    // Titles hold no full stop: a sentence runs to the next one.
    const sentence = (lead: string) => new RegExp(`${lead} [^.]*\\.`).exec(latest.content)?.[0];
    expect(sentence('Added')).toMatch(
      new RegExp(`^Added ${adds.length} tasks; the latest: .*task ${2 * lastErrand - 1} "Errand ${lastErrand}"`),
    );
    expect(sentence('Completed')).toMatch(
      new RegExp(`^Completed ${finishes.length} tasks; the latest: .* and task ${2 * lastFinished - 1} "Errand ${lastFinished}"\\.$`),
    );
    expect(sentence('Renamed')).toMatch(
      new RegExp(
        `^Renamed ${renames.length} tasks; the latest: .* and task ${2 * lastRenamed} from "Chore ${lastRenamed} for the garden" to "Tidy shed ${lastRenamed}"\\.$`,
      ),
    );

    // No word is cut: what it quotes is a message or a title, whole; the rest is its own wording and counts.
    const quoted = [...latest.content.matchAll(/"(?:[^"\\]|\\.)*"/g)].map(([json]) => JSON.parse(json) as string);
    expect(quoted.length).toBeGreaterThan(10);
    expect(quoted.filter((text) => !messages.includes(text) && !titles.has(text))).toEqual([]);
    const unquoted = latest.content.replace(/"(?:[^"\\]|\\.)*"/g, ' ');
    expect(wordsOf(unquoted).filter((word) => !SUMMARY_WORDING.has(word) && !/^\d+$/.test(word))).toEqual([]);
  }, 300_000);
});
