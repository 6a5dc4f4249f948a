import fc from 'fast-check';
import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { type SeenItem, toolVocabulary } from '../../../../src/domain/agent/clarification';
import { decisionOf, NO_TOOLS, type TurnFacts } from '../../../../src/domain/agent/decision';

/**
 * The decision mapping goes by what the model asked. A turn that changed nothing and asks the
 * person to choose among the tasks it saw, or to supply an argument a tool needs, or what they
 * meant, is ASK_CLARIFICATION with that question, however it is phrased and wherever it sits in
 * the reply; an offer or a refusal ending in an offer is not, whatever it opens with.
 */

const vocabulary = toolVocabulary(TODO_TOOLS);
const VERBS = ['Buy', 'Call', 'Pay', 'Water', 'Renew', 'Book', 'Send', 'Fix'];
const NOUNS = ['milk', 'the bank', 'mum', 'dentist', 'report', 'plants', 'rent', 'passport', 'invoice', 'bike'];

/** The person's list as the model read it: 2 to 6 tasks, numbered from 1, distinct titles. */
const taskList = fc
  .uniqueArray(
    fc.tuple(fc.constantFrom(...VERBS), fc.constantFrom(...NOUNS)).map(([verb, noun]) => `${verb} ${noun}`),
    { minLength: 2, maxLength: 6 },
  )
  .map((titles): SeenItem[] => titles.map((title, i) => ({ number: i + 1, title })));

/** A task as a model may name it. */
const naming = fc.constantFrom(
  (task: SeenItem) => `task ${task.number}`,
  (task: SeenItem) => `task ${task.number} (${task.title})`,
  (task: SeenItem) => `'${task.title}'`,
  (task: SeenItem) => `"${task.title}"`,
  (task: SeenItem) => `${task.number}. ${task.title}`,
  (task: SeenItem) => task.title,
  (task: SeenItem) => `#${task.number}`,
);

/** Two distinct tasks of the list, each named its own way. */
const twoCandidates = (tasks: readonly SeenItem[]) =>
  fc
    .tuple(fc.uniqueArray(fc.integer({ min: 0, max: tasks.length - 1 }), { minLength: 2, maxLength: 2 }), naming, naming)
    .map(([[i, j], nameA, nameB]) => [nameA(tasks[i]), nameB(tasks[j])] as const);

const action = fc.constantFrom(...vocabulary.actions.filter((word) => word !== 'list' && word !== 'add'));
const field = fc.constantFrom('title', 'new title', 'description', 'priority');

const CHOICE = [
  (a: string, b: string) => `Are you referring to ${a} or ${b}?`,
  (a: string, b: string) => `Should I mark ${a} or ${b} as done?`,
  (a: string, b: string) => `Did you mean ${a} or ${b}?`,
  (a: string, b: string) => `Which one: ${a} or ${b}?`,
  (a: string, b: string) => `Which one do you mean, ${a} or ${b}?`,
  (a: string, b: string) => `Do you want me to change ${a} or ${b}?`,
  (a: string, b: string) => `I found two tasks: ${a} and ${b}. Which one would you like to mark as done?`,
];

/** What a model asks when it must choose among candidates or needs a value. */
const clarifying = (tasks: readonly SeenItem[]) =>
  fc.oneof(
    fc.tuple(fc.constantFrom(...CHOICE), twoCandidates(tasks)).map(([template, [a, b]]) => template(a, b)),
    fc
      .tuple(twoCandidates(tasks), action, fc.constantFrom('should I', 'would you like me to'))
      .map(([[a, b], verb, mood]) => `I found ${a} and ${b}. Which one ${mood} ${verb}?`),
    fc
      .tuple(action, fc.constantFrom('Which task should I', 'Which one would you like me to', 'So, which one do I'))
      .map(([verb, start]) => `${start} ${verb}?`),
    fc
      .tuple(
        fc.constantFrom(
          (f: string) => `I need the ${f}. What should it be?`,
          (f: string) => `What should the ${f} be?`,
          (f: string) => `What ${f} would you like?`,
          (f: string) => `What would you like the ${f} to be?`,
          (f: string) => `Could you tell me the ${f}?`,
          (f: string) => `Could you provide more details about the ${f}?`,
          (f: string) => `Okay, which ${f} should it have?`,
        ),
        field,
      )
      .map(([template, f]) => template(f)),
    fc.constantFrom('Which task do you mean?', 'What did you mean?', 'Could you rephrase that?', 'Can you clarify which one?'),
  );

/** What a model says when it offers more, or refuses and offers something else. */
const offering = (tasks: readonly SeenItem[]) =>
  fc.oneof(
    fc.constantFrom(
      'I can only help with your to-do list. Which task would you like to work on?',
      'Which one would you like to focus on today?',
      'How can I help you today?',
      'Anything else?',
      'Is there anything else I can help you with?',
      'What else would you like to do?',
    ),
    fc
      .constantFrom('the weather', 'jokes', 'football scores', 'recipes')
      .map((topic) => `Sorry, I can't help with ${topic}. Can I help with your tasks instead?`),
    field.map((f) => `Would you like to add a ${f}?`),
    action.map((verb) => `Do you want me to ${verb} another task?`),
    fc
      .tuple(fc.constantFrom('Anything else?', 'Would you like to mark one as done?', 'Shall I add another?'))
      .map(([ending]) => `Here are your tasks:\n${tasks.map((task) => `${task.number}. ☐ ${task.title}`).join('\n')}\n${ending}`),
    fc.constant(`Got it! Added '${tasks[0].title}' to your list. Anything else?`),
  );

/** The question somewhere in a reply: after a sentence or an offer, before a hint. */
const placed = (question: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.constantFrom('', 'Sure. ', "Sorry, I couldn't tell. ", 'Okay!\n', 'Hmm, there is more than one. '),
      question,
      fc.constantFrom('', ' You can say its number.', " For example: 'add buy milk'.", ' Thanks!'),
    )
    .map(([before, asked, after]) => ({ reply: `${before}${asked}${after}`, asked }));

/** A turn that changed nothing: no call, or a look at the list. */
const unchanged = (seen: readonly SeenItem[]) =>
  fc.constantFrom(0, 1).map((reads): TurnFacts => ({ ...NO_TOOLS, toolsRequested: reads, seen, vocabulary }));

describe('the decision mapping, by what the model asked', () => {
  it('a question that asks to choose among the tasks seen, or for an argument, or what was meant, is ASK_CLARIFICATION with it', () => {
    fc.assert(
      fc.property(
        taskList.chain((tasks) => fc.tuple(unchanged(tasks), placed(clarifying(tasks)))),
        ([facts, { reply, asked }]) => {
          const decision = decisionOf(facts, reply);
          expect(decision.type).toBe('ASK_CLARIFICATION');
          // The question as the reply words it: the asked sentence, with no more than the reply around it.
          expect(reply).toContain(decision.clarificationQuestion);
          expect(decision.clarificationQuestion!.endsWith('?')).toBe(true);
          expect(asked.endsWith(decision.clarificationQuestion!) || decision.clarificationQuestion!.endsWith(asked)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('an offer, or a refusal that ends in one, answers (RESPOND_ONLY, or INVOKE_TOOL after a look), with no question', () => {
    fc.assert(
      fc.property(
        taskList.chain((tasks) => fc.tuple(unchanged(tasks), placed(offering(tasks)))),
        ([facts, { reply }]) => {
          expect(decisionOf(facts, reply)).toEqual({
            type: facts.toolsRequested > 0 ? 'INVOKE_TOOL' : 'RESPOND_ONLY',
            clarificationQuestion: null,
          });
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a turn that changed something is INVOKE_TOOL whatever it asks', () => {
    fc.assert(
      fc.property(
        taskList.chain((tasks) => fc.tuple(fc.constant(tasks), placed(fc.oneof(clarifying(tasks), offering(tasks))))),
        ([seen, { reply }]) => {
          const facts: TurnFacts = { ...NO_TOOLS, toolsRequested: 2, changesMade: 1, seen, vocabulary };
          expect(decisionOf(facts, reply)).toEqual({ type: 'INVOKE_TOOL', clarificationQuestion: null });
        },
      ),
      { numRuns: 500 },
    );
  });
});
