/**
 * The chat-phrasing table: what people type, the exact reply they read, the decision it was,
 * and their task list afterwards, with the checks every reply must pass. One table, played
 * by two drivers: test/unit/application/chat-phrasings.spec.ts plays all of it over the
 * chat core in memory (test/support/offline-chat.ts), and test/e2e/chat-phrasings.e2e.spec.ts
 * plays a handful over HTTP on a database.
 */

export interface Step {
  readonly say: string;
  readonly reply: string | RegExp;
  readonly decision?: 'RESPOND_ONLY' | 'INVOKE_TOOL' | 'ASK_CLARIFICATION' | 'REQUEST_CONFIRMATION';
}

export interface Scenario {
  readonly steps: readonly Step[];
  /** The list afterwards, as `<number> <✓|☐> <title> [priority]`; omitted = unchanged. */
  readonly then?: readonly string[];
  /** Tasks to start with instead of the standard three. */
  readonly start?: readonly string[];
}

/** Every scenario starts from this list; task 3 is done. */
export const START = ['1 ☐ Buy milk', '2 ☐ Dentist appointment', '3 ✓ Call mum'];
const LIST_ALL = '1. ☐ Buy milk\n2. ☐ Dentist appointment\n3. ✓ Call mum';

const one = (say: string, reply: Step['reply'], decision?: Step['decision']): readonly Step[] => [{ say, reply, decision }];

/** What people type, what they read back, and what their list looks like afterwards. */
export const SCENARIOS: Record<string, Scenario> = {
  // adding
  'add buy eggs': {
    steps: one('add buy eggs', "Got it! Added 'Buy eggs' to your list. Anything else?", 'INVOKE_TOOL'),
    then: [...START, '4 ☐ Buy eggs'],
  },
  'Add a task to pay the rent': {
    steps: one('Add a task to pay the rent', "Got it! Added 'Pay the rent' to your list. Anything else?"),
    then: [...START, '4 ☐ Pay the rent'],
  },
  'remind me to water the plants': {
    steps: one('remind me to water the plants', "Got it! Added 'Water the plants' to your list. Anything else?"),
    then: [...START, '4 ☐ Water the plants'],
  },
  'please add renew passport with high priority': {
    steps: one('please add renew passport with high priority', "Got it! Added 'Renew passport' to your list. Anything else?"),
    then: [...START, '4 ☐ Renew passport high'],
  },
  'new task: book flights': {
    steps: one('new task: book flights', "Got it! Added 'Book flights' to your list. Anything else?"),
    then: [...START, '4 ☐ Book flights'],
  },
  "can you put 'call the plumber' on my list?": {
    steps: one("can you put 'call the plumber' on my list?", "Got it! Added 'Call the plumber' to your list. Anything else?"),
    then: [...START, '4 ☐ Call the plumber'],
  },
  // listing
  "what's on my list?": { steps: one("what's on my list?", `Here are your tasks:\n${LIST_ALL}`, 'INVOKE_TOOL') },
  'show my tasks': { steps: one('show my tasks', `Here are your tasks:\n${LIST_ALL}`) },
  "what's left?": { steps: one("what's left?", 'Here are your pending tasks:\n1. ☐ Buy milk\n2. ☐ Dentist appointment') },
  'what do I still have to do': { steps: one('what do I still have to do', /^Here are your pending tasks:/) },
  'show my completed tasks': { steps: one('show my completed tasks', 'Here are your completed tasks:\n3. ✓ Call mum') },
  'what have I done?': { steps: one('what have I done?', 'Here are your completed tasks:\n3. ✓ Call mum') },
  'list an empty list': { start: [], steps: one('list my tasks', 'Your list is empty.'), then: [] },
  // completing
  'finish task 2': {
    steps: one('finish task 2', "Great! I've marked 'Dentist appointment' as complete.", 'INVOKE_TOOL'),
    then: ['1 ☐ Buy milk', '2 ✓ Dentist appointment', '3 ✓ Call mum'],
  },
  'mark the milk one done': {
    steps: one('mark the milk one done', "Great! I've marked 'Buy milk' as complete."),
    then: ['1 ✓ Buy milk', '2 ☐ Dentist appointment', '3 ✓ Call mum'],
  },
  'complete task #1': {
    steps: one('complete task #1', "Great! I've marked 'Buy milk' as complete."),
    then: ['1 ✓ Buy milk', ...START.slice(1)],
  },
  'check off the dentist appointment': {
    steps: one('check off the dentist appointment', "Great! I've marked 'Dentist appointment' as complete."),
    then: ['1 ☐ Buy milk', '2 ✓ Dentist appointment', '3 ✓ Call mum'],
  },
  'tick off task 1': {
    steps: one('tick off task 1', "Great! I've marked 'Buy milk' as complete."),
    then: ['1 ✓ Buy milk', ...START.slice(1)],
  },
  'complete a completed task': { steps: one('mark task 3 as done', "'Call mum' was already complete.") },
  // updating
  'rename task 1 to buy oat milk': {
    steps: one('rename task 1 to buy oat milk', "Updated! 'Buy oat milk' now has a new title (it was 'Buy milk').", 'INVOKE_TOOL'),
    then: ['1 ☐ Buy oat milk', ...START.slice(1)],
  },
  'change the description of task 2': {
    steps: one(
      'change the description of task 2 to bring the insurance card',
      "Updated! 'Dentist appointment' now has the description 'bring the insurance card'.",
    ),
  },
  'make task 2 high priority': {
    steps: one('make task 2 high priority', "Updated! 'Dentist appointment' now has high priority."),
    then: ['1 ☐ Buy milk', '2 ☐ Dentist appointment high', '3 ✓ Call mum'],
  },
  // deleting: always a question first, nothing deleted
  'delete the dentist task': {
    steps: one(
      'delete the dentist task',
      "Do you really want to delete 'Dentist appointment'? Reply 'yes delete' to confirm.",
      'REQUEST_CONFIRMATION',
    ),
  },
  'remove task 1': { steps: one('remove task 1', "Do you really want to delete 'Buy milk'? Reply 'yes delete' to confirm.") },
  'delete all completed tasks': {
    steps: one('delete all completed tasks', "Do you really want to delete 'Call mum'? Reply 'yes delete' to confirm."),
  },
  'delete everything': {
    steps: one(
      'delete everything',
      "Do you really want to delete 3 tasks: 'Buy milk', 'Dentist appointment' and 'Call mum'? Reply 'yes delete' to confirm.",
    ),
  },
  // confirming and cancelling
  'delete, then yes delete': {
    steps: [
      { say: 'delete the dentist task', reply: /^Do you really want to delete 'Dentist appointment'\?/ },
      { say: 'yes delete', reply: "I've removed 'Dentist appointment' from your tasks.", decision: 'INVOKE_TOOL' },
    ],
    then: ['1 ☐ Buy milk', '3 ✓ Call mum'],
  },
  'delete several, then yes': {
    steps: [
      {
        say: 'delete tasks 1 and 3',
        reply: "Do you really want to delete 2 tasks: 'Buy milk' and 'Call mum'? Reply 'yes delete' to confirm.",
      },
      { say: 'yes', reply: "I've removed 2 tasks: 'Buy milk' and 'Call mum'." },
    ],
    then: ['2 ☐ Dentist appointment'],
  },
  'delete, then no': {
    steps: [
      { say: 'remove task 1', reply: /^Do you really want to delete 'Buy milk'/ },
      { say: 'no', reply: "Okay, I've cancelled that. Nothing was changed.", decision: 'RESPOND_ONLY' },
      { say: 'yes delete', reply: "There's nothing waiting for your confirmation right now." },
    ],
  },
  'delete, then something else, then yes': {
    steps: [
      { say: 'remove task 1', reply: /^Do you really want to delete 'Buy milk'/ },
      { say: 'add buy bread', reply: "Got it! Added 'Buy bread' to your list. Anything else?" },
      { say: 'yes', reply: "There's nothing waiting for your confirmation right now." },
    ],
    then: [...START, '4 ☐ Buy bread'],
  },
  // references to what was just shown
  'list, then complete the first one': {
    steps: [
      { say: "what's left?", reply: /^Here are your pending tasks:/ },
      { say: 'complete the second one', reply: "Great! I've marked 'Dentist appointment' as complete." },
    ],
    then: ['1 ☐ Buy milk', '2 ✓ Dentist appointment', '3 ✓ Call mum'],
  },
  // clarification
  'two tasks match': {
    start: ['1 ☐ Call mum', '2 ☐ Call the bank'],
    steps: one(
      'mark the call one done',
      "I found multiple tasks about 'call'. Which one: 1. Call mum or 2. Call the bank?",
      'ASK_CLARIFICATION',
    ),
  },
  'nothing matches': {
    steps: one(
      'finish the gym task',
      "I couldn't find a task about 'gym' in your list. Say 'show my tasks' to see what's on it.",
      'INVOKE_TOOL',
    ),
  },
  'unknown number': {
    steps: one('complete task 9', "I couldn't find task 9 in your list. Say 'show my tasks' to see their numbers.", 'INVOKE_TOOL'),
  },
  // something missing: asked for, nothing changed
  'add a task': {
    steps: one('add a task', "Could you provide more details about the task's title? For example: 'add buy milk'.", 'ASK_CLARIFICATION'),
  },
  'rename task 1 to': {
    steps: one(
      'rename task 1 to',
      "Could you provide more details about the new title? For example: 'rename task 1 to buy oat milk'.",
      'ASK_CLARIFICATION',
    ),
  },
  'update task 1': {
    steps: one(
      'update task 1',
      'Could you provide more details about the change you want: a new title, a description or a priority? ' +
        "For example: 'make task 1 high priority'.",
      'ASK_CLARIFICATION',
    ),
  },
  'delete it, with nothing said before': {
    steps: one(
      'delete it',
      "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.",
      'ASK_CLARIFICATION',
    ),
  },
  // a change named alone: which task, in the seeds' "Could you provide more details about [what's missing]?"
  'delete, alone': {
    steps: one(
      'delete',
      "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.",
      'ASK_CLARIFICATION',
    ),
  },
  'complete, alone': {
    steps: one(
      'complete',
      "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.",
      'ASK_CLARIFICATION',
    ),
  },
  'change the priority, alone': {
    steps: one(
      'change the priority',
      'Could you provide more details about which task you mean, and the priority you want: high, medium or low? ' +
        "For example: 'make task 2 high priority'.",
      'ASK_CLARIFICATION',
    ),
  },
  // talk without tools
  hello: { steps: one('hello', /^Hi! /, 'RESPOND_ONLY') },
  'good morning!': { steps: one('good morning!', /^Hi! /) },
  help: { steps: one('help', /add/i, 'RESPOND_ONLY') },
  'what can you do?': { steps: one('what can you do?', /delet/i) },
  "what's the weather today?": {
    steps: one(
      "what's the weather today?",
      'Sorry, I can only help with your task list: adding, listing, completing, updating and deleting tasks.',
      'RESPOND_ONLY',
    ),
  },
  'tell me a joke': { steps: one('tell me a joke', /^Sorry, I can only help with your task list/) },
  gibberish: { steps: one('blorp flibber', /^I'm not sure what you'd like to do\./, 'ASK_CLARIFICATION') },
  // the other reply formats: invalid input, a big action, a long list
  'a title past 200 characters': {
    steps: one(`add ${'a very long title '.repeat(14)}`, 'That title is too long: 200 characters at most.', 'INVOKE_TOOL'),
  },
  'finish 1 to 4': {
    start: ['1 ☐ A', '2 ☐ B', '3 ☐ C', '4 ☐ D'],
    steps: one('finish 1 to 4', /^That's a big action: .*Confirm with 'yes'\.$/s, 'REQUEST_CONFIRMATION'),
  },
  'a long list': {
    start: Array.from({ length: 40 }, (_, i) => `${i + 1} ☐ Errand with a fairly long title, number ${i + 1}`),
    steps: one(
      "what's on my list?",
      /^Here are your tasks:\n1\. ☐ Errand with a fairly long title, number 1\n(.+\n)+…and \d+ more: the task list shows them all\.$/,
    ),
  },
};

/** The bound of a reply (AGENT_MAX_REPLY_CHARS' default); none of these may pass it. */
export const REPLY_BOUND = 500;
/** What a person must never read: schema paths and rules, error codes, JSON. */
export const RAW = /arguments\.|must be (at|one|a )|[A-Z]{3,}_[A-Z_]+|[{}[\]"]/;

/** A task as the list shows it. */
export interface ListedTask {
  readonly number: number;
  readonly completed: boolean;
  readonly title: string;
  readonly priority: string;
}

/** What one chat turn answered. */
export interface ChatTurn {
  readonly conversationId: string;
  /** The turn's status (`completed`, `failed`, …). */
  readonly status: string;
  readonly response: string;
  readonly decisionType: string;
}

/** How a suite talks to the assistant: over HTTP, or to the chat core in memory. */
export interface PhrasingDriver<Person> {
  /** A new person whose list holds these tasks, added in this order (so numbered from 1), the done ones completed. */
  personWith(tasks: readonly { readonly title: string; readonly completed: boolean }[]): Promise<Person>;
  /** One message, in a new conversation when `conversationId` is undefined; a driver checks its own transport (HTTP 200). */
  send(person: Person, message: string, conversationId: string | undefined): Promise<ChatTurn>;
  /** The person's list, by number. */
  tasksOf(person: Person): Promise<readonly ListedTask[]>;
}

/** The scenarios of these names, for it.each; an unknown name throws. */
export function scenariosNamed(names: readonly string[]): [string, Scenario][] {
  return names.map((name) => {
    const scenario = SCENARIOS[name];
    if (!scenario) throw new Error(`No phrasing scenario named "${name}"`);
    return [name, scenario];
  });
}

/** Starts the scenario's person, says each step in one conversation, and checks every reply and the list afterwards. */
export async function playScenario<Person>(driver: PhrasingDriver<Person>, scenario: Scenario): Promise<void> {
  const start = scenario.start ?? START;
  const person = await driver.personWith(
    start.map((line) => {
      const [, done, title] = /^\d+ (✓|☐) (.+)$/.exec(line)!;
      return { title, completed: done === '✓' };
    }),
  );
  let conversationId: string | undefined;
  for (const step of scenario.steps) {
    const turn = await driver.send(person, step.say, conversationId);
    expect({ say: step.say, turn: turn.status }).toEqual({ say: step.say, turn: 'completed' });
    expect({ say: step.say, reply: turn.response }).toEqual({
      say: step.say,
      reply: typeof step.reply === 'string' ? step.reply : expect.stringMatching(step.reply),
    });
    if (step.decision) expect({ say: step.say, decision: turn.decisionType }).toEqual({ say: step.say, decision: step.decision });
    expect(turn.response).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect({ say: step.say, raw: RAW.exec(turn.response)?.[0] ?? null }).toEqual({ say: step.say, raw: null });
    expect(turn.response.length).toBeLessThanOrEqual(REPLY_BOUND);
    conversationId = turn.conversationId;
  }
  const listed = (await driver.tasksOf(person)).map(
    (t) => `${t.number} ${t.completed ? '✓' : '☐'} ${t.title}${t.priority === 'high' ? ' high' : ''}`,
  );
  expect(listed).toEqual(scenario.then ?? start);
}
