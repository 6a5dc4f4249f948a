import { interpretConfirmationReply } from '../../../domain/agent/confirmation';
import type { TaskPriority, TaskStatusFilter } from '../../../domain/todo/task';
import {
  cleanDescription,
  cleanTitle,
  type DeletionTarget,
  parseDeletion,
  parseSeveral,
  parseTarget,
  priorityOf,
  type TaskTarget,
  tidy,
  withoutCourtesy,
  withoutPriority,
} from './phrases';

export interface TaskEdits {
  readonly title?: string;
  readonly description?: string;
  readonly priority?: TaskPriority;
}

/**
 * What a request to add or change a task left out: the title, the new title, the change, which
 * task, the priority, or which task and the priority.
 */
export type MissingDetail = 'title' | 'new_title' | 'change' | 'task' | 'priority' | 'task_and_priority';

/** What one user sentence asks for, before it is checked against the tools on offer. */
export type Intent =
  | { readonly kind: 'greeting' | 'help' | 'confirmation' | 'off_topic' | 'unclear' }
  | { readonly kind: 'needs_detail'; readonly detail: MissingDetail }
  | { readonly kind: 'add'; readonly title: string; readonly priority?: TaskPriority }
  | { readonly kind: 'list'; readonly status: TaskStatusFilter }
  | { readonly kind: 'complete'; readonly target: TaskTarget }
  | { readonly kind: 'complete_several'; readonly numbers: readonly number[] }
  | { readonly kind: 'update'; readonly target: TaskTarget; readonly edits: TaskEdits }
  | { readonly kind: 'delete'; readonly target: DeletionTarget };

interface Rule {
  readonly pattern: RegExp;
  /** undefined lets the next rule try. */
  readonly intent: (match: RegExpExecArray) => Intent | undefined;
}

const UNCLEAR: Intent = { kind: 'unclear' };

const GREETING =
  /^(?:(?:hi|hello|hey|hiya|heya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|what'?s up|sup|how are you(?: doing)?(?: today)?|how'?s it going)(?: there)?(?: bridle)?\s*)+$/i;

const HELP =
  /^(?:help(?: me)?(?: out)?|what can you do(?: for me)?|what do you do|what are you|who are you|what can i (?:say|do|ask)(?: you)?|how does (?:this|it|that) work|how do (?:i|you) (?:use (?:this|you|it)|work)|how (?:can|do) you help(?: me)?|(?:show (?:me )?)?(?:the |your )?(?:commands|options|instructions|usage|menu)|what are (?:the|your) (?:commands|options)|what (?:commands|things) can i (?:use|say))$/i;

const VIEW = '(?:show|list|display|see|give|get|view|check|print|read|tell)';
const NOUN = '(?:tasks|todos|to-dos|items|things|ones|stuff)';
const PENDING = '(?:unfinished|open|remaining|pending|incomplete|outstanding|undone|uncompleted|unchecked|active|current|left)';
const COMPLETED = '(?:completed|finished|done|checked(?: off)?|ticked(?: off)?|closed)';

/** "show pending", "pending tasks", "show me my pending tasks": a view verb or a noun, or both. */
function listingOf(adjective: string): RegExp {
  return new RegExp(
    `^(?:${VIEW}(?: me)?(?: all)?(?: of)?(?: my| the)? ${adjective}(?: ${NOUN})?|(?:all )?(?:of )?(?:my |the )?${adjective} ${NOUN})$`,
    'i',
  );
}

const list = (status: TaskStatusFilter) => (): Intent => ({ kind: 'list', status });
const complete = (phrase: string): Intent => {
  const numbers = parseSeveral(phrase);
  return numbers ? { kind: 'complete_several', numbers } : { kind: 'complete', target: parseTarget(phrase) };
};
const update = (phrase: string, edits: TaskEdits): Intent => ({ kind: 'update', target: parseTarget(phrase), edits });

function add(body: string): Intent | undefined {
  const { text, priority } = withoutPriority(body);
  const title = cleanTitle(text);
  if (title.length === 0) return undefined;
  return priority ? { kind: 'add', title, priority } : { kind: 'add', title };
}

function retitle(phrase: string, rawTitle: string): Intent | undefined {
  if (/^(?:done|complete|completed|finished)$/i.test(rawTitle)) return complete(phrase);
  const title = cleanTitle(rawTitle);
  return title.length > 0 ? update(phrase, { title }) : undefined;
}

const needs = (detail: MissingDetail): Intent => ({ kind: 'needs_detail', detail });

/** A task by number or position ("task 1", "the second one"), or by words beside a task noun ("the milk task"). */
const NAMES_A_TASK = /\b(?:task|item|todo|to-do|one)\b/i;

/**
 * "rename task 1 to", "update task 1": the task is named but not what to make of it. With
 * "to" at the end, or a rename, what is missing is the new title; else the change itself.
 * A phrase that names no task asks which; one that may not be about a task at all ("change
 * my mind") is left to the other rules.
 */
function changeWithout(phrase: string | undefined, retitling: boolean): Intent | undefined {
  const target = phrase === undefined ? ({ kind: 'missing' } as const) : parseTarget(phrase);
  if (target.kind === 'missing') return needs('task');
  if (target.kind === 'query' && !NAMES_A_TASK.test(phrase ?? '')) return undefined;
  return needs(retitling ? 'new_title' : 'change');
}

function reprioritise(phrase: string, word: string): Intent | undefined {
  const priority = priorityOf(word);
  return priority ? update(phrase, { priority }) : undefined;
}

/** "what is done" must not become "complete the task about 'what'". */
const NOT_A_TASK = /^(?:what|which|who|everything|all|anything|nothing|i|i'm|i am|we|you)\b/i;

/** "I need to", "I have to", "gotta"…: what comes after says what the person wants (needTo). */
const NEED_TO =
  /^(?:i (?:really |still |also )?(?:need|must|should|ought)(?: to)?|i (?:really |still |also )?have to|i(?:'ve| have)? got to|i gotta|need to|have to) /i;

/** "delete", "complete", "mark as done", "update a task": a change named without its task (or a pronoun for it). */
const BARE_CHANGE =
  /^(?:delete|remove|erase|complete|finish|close|tick off|check off|cross off|rename|update|change|edit|modify|mark(?: (?:it|one|a task))?(?: as)? (?:done|complete|completed|finished))(?: (?:a|the|my|one|some|that|this|it))?(?: (?:task|todo|to-do|item|one))?$/i;
/** "change the priority", "set the priority of task 2": the priority to set is missing, and the task when none is named. */
const PRIORITY_WITHOUT_LEVEL = /^(?:change|set|update|edit|adjust|alter) (?:the |a |its )?priority(?: (?:of|for|on) (.+))?$/i;

/** Tried in order; the first rule whose pattern matches and whose intent is defined wins. */
const RULES: readonly Rule[] = [
  // a change that names no task: asked about, never guessed ("mark as done" is no task called "as")
  { pattern: BARE_CHANGE, intent: () => needs('task') },

  // Reopening a task has no tool; without this rule "mark 2 as not done" would complete it.
  {
    pattern:
      /^(?:(?:mark|set|put|flag|make) .+ (?:as )?(?:not (?:yet )?(?:done|complete|completed|finished)|undone|incomplete|uncompleted|unfinished|open|pending)|(?:reopen|uncheck|untick|uncomplete|undo) .+)$/i,
    intent: () => UNCLEAR,
  },

  // update: description
  {
    pattern: /^(?:change|set|update|edit|make) the (?:description|note|notes|details) (?:of|for|on) (.+?) (?:to|as|into) (.+)$/i,
    intent: (m) => update(m[1], { description: cleanDescription(m[2]) }),
  },
  {
    pattern:
      // The task is what comes before the first separator (tidy() left single spaces): it cannot
      // hold one, so each character is read once, not once per separator after it.
      /^(?:add|put|attach|write|leave|give) (?:a |the )?(?:note|description|comment) (?:to|on|for) (.(?:(?! saying | that says | reading )[^:,–-])*?)(?: ?[:,–-] ?| saying | that says | reading )(.+)$/i,
    intent: (m) => update(m[1], { description: cleanDescription(m[2]) }),
  },
  {
    pattern: /^(?:remove|delete|clear|drop|erase) the (?:description|note|notes|details) (?:of|for|from|on) (.+)$/i,
    intent: (m) => update(m[1], { description: '' }),
  },

  // update: priority
  {
    pattern: /^(?:make|set|mark|flag|change|put|move) (.+?) (?:as |to |at )?(?:a )?(?:not urgent|not important|unimportant)$/i,
    intent: (m) => update(m[1], { priority: 'low' }),
  },
  {
    pattern:
      /^(?:make|set|mark|flag|change|put|move) (.+?) (?:as |to |at |in )?(?:a )?(high|highest|top|low|lowest|medium|normal|mid)[- ]priority$/i,
    intent: (m) => reprioritise(m[1], m[2]),
  },
  {
    pattern: /^(?:make|mark|flag|set) (.+?) (?:as )?(urgent|important)$/i,
    intent: (m) => reprioritise(m[1], m[2]),
  },
  {
    pattern:
      /^(?:set|change|update|make) the priority (?:of|for|on) (.+?) (?:to|as) (high|highest|top|low|lowest|medium|normal|mid|urgent)$/i,
    intent: (m) => reprioritise(m[1], m[2]),
  },
  { pattern: /^prioriti[sz]e (.+)$/i, intent: (m) => update(m[1], { priority: 'high' }) },
  { pattern: /^de-?prioriti[sz]e (.+)$/i, intent: (m) => update(m[1], { priority: 'low' }) },
  {
    pattern: /^(.+?) is (?:now )?(?:very |really )?(urgent|important|(?:high|low|medium) priority)$/i,
    intent: (m) => (NOT_A_TASK.test(m[1]) ? undefined : reprioritise(m[1], m[2].split(' ')[0])),
  },

  // update: title
  { pattern: /^(?:rename|retitle) (.+?) (?:to|as|into) (.+)$/i, intent: (m) => retitle(m[1], m[2]) },
  {
    pattern: /^(?:change|set|update|edit) the (?:title|name|wording|text) (?:of|for|on) (.+?) to (.+)$/i,
    intent: (m) => retitle(m[1], m[2]),
  },
  {
    pattern: /^(?:change|update|edit|reword|modify) (.+?) (?:to|into) (?:say |read )?(.+)$/i,
    intent: (m) => retitle(m[1], m[2]),
  },

  // delete
  {
    pattern:
      /^(?:clear|clean up|clean out|wipe|purge)(?: out)?(?: (?:the|my|all))? (?:completed|finished|done)(?: ones| tasks| todos| items)?$/i,
    intent: () => ({ kind: 'delete', target: { kind: 'scope', scope: 'completed' } }),
  },
  {
    pattern: /^(?:clear|wipe|empty|reset)(?: out)? (?:my|the) (?:whole |entire )?(?:list|todo list|to-do list|task list|tasks|todos)$/i,
    intent: () => ({ kind: 'delete', target: { kind: 'scope', scope: 'all' } }),
  },
  {
    pattern: /^(?:delete|remove|erase|get rid of|drop|trash|scrap|bin|clear|wipe|purge|throw away|throw out) (.+)$/i,
    intent: (m) => ({ kind: 'delete', target: parseDeletion(m[1]) }),
  },
  {
    pattern: /^take (.+?) off (?:my|the) (?:todo |to-do |task )?list$/i,
    intent: (m) => ({ kind: 'delete', target: parseDeletion(m[1]) }),
  },

  // complete
  {
    pattern: /^(?:mark|set|put|flag) (.+?) (?:as |to )?(?:done|complete|completed|finished|checked|ticked)$/i,
    intent: (m) => complete(m[1]),
  },
  { pattern: /^(?:check|tick|cross) (.+?) off(?: (?:my|the) list)?$/i, intent: (m) => complete(m[1]) },
  { pattern: /^(?:finish|complete|check off|tick off|cross off|close) (.+)$/i, intent: (m) => complete(m[1]) },
  {
    pattern: /^(?:i|i've|i have)(?: just| already| finally)? (?:did|done|finished|completed|accomplished) (.+)$/i,
    intent: (m) => complete(m[1]),
  },
  { pattern: /^(?:i'm |i am )?(?:done|finished) with (.+)$/i, intent: (m) => complete(m[1]) },
  {
    pattern: /^(.+?) (?:is|are|has been|was) (?:now |already |finally )?(?:done|complete|completed|finished|taken care of)$/i,
    intent: (m) => (NOT_A_TASK.test(m[1]) ? undefined : complete(m[1])),
  },
  {
    pattern: /^((?:task |item |number )?#?\d+) (?:done|complete|completed|finished)$/i,
    intent: (m) => complete(m[1]),
  },

  // list: pending
  {
    pattern:
      /^(?:what'?s|what is|whats) (?:still )?(?:left|pending|remaining|outstanding|open|next|not done|undone|unfinished)(?: (?:to do|on my list|for me|for today|in my list))?$/i,
    intent: list('pending'),
  },
  {
    pattern: /^what (?:else )?(?:(?:do|have) )?i (?:still )?(?:have|need|got|gotta) (?:left )?(?:to do|to finish|left)(?: today)?$/i,
    intent: list('pending'),
  },
  {
    pattern: /^what (?:else )?(?:is|are) (?:there )?(?:still )?(?:left|to do|remaining|pending|outstanding)(?: to do)?$/i,
    intent: list('pending'),
  },
  {
    pattern:
      /^(?:which|what) (?:tasks|todos|items|things) (?:are|do i have) (?:still )?(?:left|open|pending|remaining|not done|undone|unfinished|to do)$/i,
    intent: list('pending'),
  },
  {
    pattern:
      /^(?:is there |do i have )?anything (?:left|else)(?: to do)?$|^what remains$|^what should i (?:do|work on)(?: next| now| today)?$/i,
    intent: list('pending'),
  },
  { pattern: /^(?:tasks|todos|things|items) (?:left|remaining|to do|still open)$/i, intent: list('pending') },
  { pattern: listingOf(PENDING), intent: list('pending') },

  // list: completed
  {
    pattern:
      /^what (?:have|did) i (?:already )?(?:done|do|finished|finish|completed|complete|accomplished|accomplish|gotten done|get done|achieved)(?: so far| today| already| yet)?$/i,
    intent: list('completed'),
  },
  {
    pattern:
      /^(?:what'?s|what is|whats|what are|which are|which tasks are|what tasks are) (?:already )?(?:done|completed|finished|checked off)$/i,
    intent: list('completed'),
  },
  {
    pattern: /^(?:which|what) (?:tasks|todos|items|things) (?:have|did) i (?:already )?(?:done|do|finished|finish|completed|complete)$/i,
    intent: list('completed'),
  },
  { pattern: listingOf(COMPLETED), intent: list('completed') },

  // list: all
  {
    pattern: /^(?:what'?s|what is|whats) (?:on|in) (?:my|the) (?:list|todo list|to-do list|task list|agenda|plate)$/i,
    intent: list('all'),
  },
  {
    pattern: /^what (?:do i have|have i got|tasks do i have|are my (?:tasks|todos|to-dos)|do i have on my (?:list|plate)|is on my plate)$/i,
    intent: list('all'),
  },
  {
    pattern:
      /^(?:show|list|display|see|view|print|read)(?: me)?(?: all| everything)?$|^(?:show|list|display|see|give|get|view|check|print|read|tell)(?: me)?(?: all)?(?: of)?(?: my| the)? (?:tasks|todos|to-dos|list|todo list|to-do list|task list|items|things to do|everything)$/i,
    intent: list('all'),
  },
  {
    pattern: /^(?:all )?(?:of )?(?:my )?(?:tasks|todos|to-dos|todo list|to-do list|task list|list)$/i,
    intent: list('all'),
  },
  {
    pattern:
      /^(?:do i have|have i got|are there|how many) (?:any )?(?:tasks|todos|to-dos|things to do)(?: (?:do i have|are there))?(?: on my list)?$/i,
    intent: list('all'),
  },

  // add
  {
    pattern:
      /^(?:add|put|create|make|new|start|jot down|write down|note down|log) ((?:a |an )?(?:new )?(?:task|todo|to-do|item|reminder|entry)\b.*)$/i,
    intent: (m) => add(m[1]),
  },
  { pattern: /^put (.+?) on (?:my|the) (?:todo |to-do |task )?list$/i, intent: (m) => add(m[1]) },
  { pattern: /^(?:add|jot down|write down|note down) (.+)$/i, intent: (m) => add(m[1]) },
  { pattern: /^(?:task|todo|to-do|reminder)\s*[:-]\s*(\S.*)$/i, intent: (m) => add(m[1]) },
  { pattern: /^remind me (?:to|about|of) (.+)$/i, intent: (m) => add(m[1]) },
  {
    pattern:
      /^(?:don'?t let me forget|do not let me forget|don'?t forget|help me remember|make sure i remember|remember)(?: to| about)? (.+)$/i,
    intent: (m) => add(m[1]),
  },
  { pattern: new RegExp(`${NEED_TO.source}(.+)$`, 'i'), intent: (m) => needTo(m[1]) },

  // a request that leaves out what it needs: asked for, not guessed
  {
    pattern:
      /^(?:add|create|make|put|new|jot down|write down|note down)(?: (?:a|an|another|one more))?(?: new)?(?: (?:task|todo|to-do|item|reminder|entry))?(?: (?:to|on) (?:my|the) (?:todo |to-do |task )?list)?$/i,
    intent: () => needs('title'),
  },
  { pattern: /^(?:re)?prioriti[sz]e$/i, intent: () => needs('task_and_priority') },
  {
    pattern: PRIORITY_WITHOUT_LEVEL,
    intent: (m) => (m[1] === undefined || parseTarget(m[1]).kind === 'missing' ? needs('task_and_priority') : needs('priority')),
  },
  { pattern: /^(?:rename|retitle|reword)(?: (.+?))?(?: (?:to|as|into))?$/i, intent: (m) => changeWithout(m[1], true) },
  {
    pattern: /^(?:change|set|update|edit) the (?:title|name|wording|text) (?:of|for|on) (.+?)(?: to)?$/i,
    intent: (m) => changeWithout(m[1], true),
  },
  { pattern: /^(?:update|change|edit|modify|alter) (.+?)( (?:to|into))?$/i, intent: (m) => changeWithout(m[1], m[2] !== undefined) },
];

function matchRules(text: string): Intent | undefined {
  for (const rule of RULES) {
    const match = rule.pattern.exec(text);
    const intent = match ? rule.intent(match) : undefined;
    if (intent) return intent;
  }
  return undefined;
}

/**
 * "I need to delete task 2" is a request about the list; "I need to finish the report" is a
 * new task, although "finish the report" alone would complete one. Only a sentence that
 * points at tasks by number, position or scope, or asks for the list, counts as the former.
 */
function needTo(rest: string): Intent | undefined {
  // "I need to I need to …" once more is a task's words, not a second request to read: each
  // reading would go through every rule again, which made a message of repeats quadratic.
  const inner = NEED_TO.test(rest) ? undefined : matchRules(rest);
  const aboutTheList =
    inner?.kind === 'list' ||
    ((inner?.kind === 'complete' || inner?.kind === 'update' || inner?.kind === 'delete') &&
      inner.target.kind !== 'query' &&
      inner.target.kind !== 'missing');
  return aboutTheList ? inner : add(rest);
}

const OFF_TOPIC =
  /\b(?:weather|forecast|temperature|rain|snow|jokes?|funny|news|headlines?|sports?|football|soccer|basketball|baseball|tennis|scores?|poems?|poetry|haiku|story|stories|songs?|lyrics|recipes?|cook|bake|maths?|calculate|equation|capital|president|population|translate|movies?|films?|music|stocks?|bitcoin|crypto|meaning of life|what time|date today|horoscope|definition|define)\b/i;
const ARITHMETIC = /\d\s*[-+*/×÷^]\s*\d/;
const QUESTION =
  /^(?:who|whom|whose|when|where|why|how|what|what's|whats|which|is|are|was|were|does|do|did|can|could|should|would|will|tell me|explain|write|sing|compose|solve)\b/i;
const ABOUT_TASKS = /\b(?:tasks?|todos?|to-dos?|list|done|complete|completed|finished|priority|remind|reminder|delete|remove|add)\b/i;

function isOffTopic(text: string): boolean {
  return OFF_TOPIC.test(text) || ARITHMETIC.test(text) || (QUESTION.test(text) && !ABOUT_TASKS.test(text));
}

function isConfirmationWord(text: string): boolean {
  return interpretConfirmationReply(text) !== 'other';
}

/** Deterministic: the same sentence always means the same thing. */
export function understand(sentence: string): Intent {
  const tidied = tidy(sentence);
  if (tidied.length === 0) return UNCLEAR;
  if (isConfirmationWord(tidied)) return { kind: 'confirmation' };
  if (GREETING.test(tidied.replace(/[,!.]/g, ''))) return { kind: 'greeting' };
  const text = withoutCourtesy(tidied);
  if (text.length === 0) return UNCLEAR;
  if (isConfirmationWord(text)) return { kind: 'confirmation' };
  if (HELP.test(text)) return { kind: 'help' };
  return matchRules(text) ?? (isOffTopic(text) ? { kind: 'off_topic' } : UNCLEAR);
}
