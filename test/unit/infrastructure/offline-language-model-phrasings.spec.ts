import { OfflineLanguageModel } from '../../../src/infrastructure/llm/offline/offline-language-model';
import { adds, completes, deletes, type Expected, greets, lists, says, updates, WHICH_TASK } from '../../support/offline-model-answers';
import { answerOf, user } from '../../support/offline-model-turns';

const TITLE_MISSING = "Could you provide more details about the task's title? For example: 'add buy milk'.";
const NEW_TITLE_MISSING = "Could you provide more details about the new title? For example: 'rename task 1 to buy oat milk'.";
const CHANGE_MISSING =
  'Could you provide more details about the change you want: a new title, a description or a priority? ' +
  "For example: 'make task 1 high priority'.";
const PRIORITY_MISSING =
  "Could you provide more details about the priority you want: high, medium or low? For example: 'make task 2 high priority'.";
const TASK_AND_PRIORITY_MISSING =
  'Could you provide more details about which task you mean, and the priority you want: high, medium or low? ' +
  "For example: 'make task 2 high priority'.";
const NOTHING_TO_CONFIRM = "There's nothing waiting for your confirmation right now.";
const OFF_TOPIC = 'Sorry, I can only help with your task list: adding, listing, completing, updating and deleting tasks.';
const CLARIFY =
  "I'm not sure what you'd like to do. Did you mean to add a task, see your list or change one? You can say things like " +
  "'add buy milk', 'what's left?' or 'mark task 2 done'.";

const helps = says(
  expect.stringMatching(/(?=[\s\S]*add buy milk)(?=[\s\S]*what's left)(?=[\s\S]*mark task 2 done)(?=[\s\S]*rename)(?=[\s\S]*delete)/),
);

/** What a person may type, and what a good model answers with no list shown yet. */
const PHRASINGS: readonly (readonly [string, Expected])[] = [
  ['hi', greets],
  ['Hello!', greets],
  ['hey there', greets],
  ['Good morning', greets],
  ['howdy', greets],

  ['help', helps],
  ['What can you do?', helps],
  ['how does this work?', helps],
  ['commands', helps],

  ['add buy milk', adds('Buy milk')],
  ['Add a task to buy milk', adds('Buy milk')],
  ['add task call mom', adds('Call mom')],
  ['Create a task called "Renew passport"', adds('Renew passport')],
  ['create task pay rent', adds('Pay rent')],
  ['new task: water the plants', adds('Water the plants')],
  ['remind me to call the dentist', adds('Call the dentist')],
  ['I need to pick up the dry cleaning', adds('Pick up the dry cleaning')],
  ['I have to file my taxes', adds('File my taxes')],
  ['put eggs on my list', adds('Eggs')],
  ["don't let me forget to send the invoice", adds('Send the invoice')],
  ['Please add walk the dog to my list!', adds('Walk the dog')],
  ["add 'Book flights' to the list please", adds('Book flights')],
  ['can you add buy bread?', adds('Buy bread')],
  ['I want to add a reminder to water the garden', adds('Water the garden')],
  ['hi, add buy milk', adds('Buy milk')],
  ['add buy milk with high priority', adds('Buy milk', 'high')],
  ['add an urgent task to call the bank', adds('Call the bank', 'high')],
  ["remind me to renew my passport, it's important", adds('Renew my passport', 'high')],
  ['add water plants, low priority', adds('Water plants', 'low')],
  ['add read important email', adds('Read important email')],
  ['I need to finish the report', adds('Finish the report')],

  ["what's on my list?", lists('all')],
  ['show my tasks', lists('all')],
  ['list tasks', lists('all')],
  ['my todos', lists('all')],
  ['What do I have?', lists('all')],
  ['show me everything', lists('all')],
  ["tell me what's on my list", lists('all')],

  ["what's left?", lists('pending')],
  ["What's pending", lists('pending')],
  ['what do I still have to do?', lists('pending')],
  ['unfinished tasks', lists('pending')],
  ['show open tasks', lists('pending')],
  ['remaining tasks', lists('pending')],
  ["could you show me what's left?", lists('pending')],
  ['can you tell me what I have to do?', lists('pending')],

  ['what have I done?', lists('completed')],
  ['completed tasks', lists('completed')],
  ['show finished tasks', lists('completed')],
  ['show done tasks', lists('completed')],
  ['what did I finish today?', lists('completed')],
  ["what's done?", lists('completed')],

  ['mark task 2 done', completes({ number: 2 })],
  ['mark 2 as done', completes({ number: 2 })],
  ['mark #2 complete', completes({ number: 2 })],
  ['finish number 2', completes({ number: 2 })],
  ['complete task 3', completes({ number: 3 })],
  ['check off task 1', completes({ number: 1 })],
  ['I finished task two', completes({ number: 2 })],
  ['task 4 is done', completes({ number: 4 })],
  ['set task 2 to done', completes({ number: 2 })],
  ['tick off buy milk', completes({ query: 'buy milk' })],
  ['mark the milk one done', completes({ query: 'milk' })],
  ['check the dentist task off', completes({ query: 'dentist' })],
  ['I did the laundry', completes({ query: 'laundry' })],
  ['done with the milk task', completes({ query: 'milk' })],
  ['finish the report', completes({ query: 'report' })],
  ['mark it done', says(WHICH_TASK)],

  ['rename task 1 to buy oat milk', updates({ number: 1, title: 'Buy oat milk' })],
  ['rename the milk task to buy oat milk', updates({ query: 'milk', title: 'Buy oat milk' })],
  ['change task 1 to call grandma', updates({ number: 1, title: 'Call grandma' })],
  ['change the title of task 3 to "Pay rent"', updates({ number: 3, title: 'Pay rent' })],
  ['change the description of task 2 to bring the insurance card', updates({ number: 2, description: 'bring the insurance card' })],
  ['set the description of the dentist task to bring the card', updates({ query: 'dentist', description: 'bring the card' })],
  ['add a note to task 2: bring the card', updates({ number: 2, description: 'bring the card' })],
  ['remove the description from task 2', updates({ number: 2, description: '' })],
  ['make task 3 high priority', updates({ number: 3, priority: 'high' })],
  ['set the priority of the dentist task to low', updates({ query: 'dentist', priority: 'low' })],
  ['mark the report as urgent', updates({ query: 'report', priority: 'high' })],
  ['change task 1 to low priority', updates({ number: 1, priority: 'low' })],
  ['prioritize task 5', updates({ number: 5, priority: 'high' })],

  ['delete task 2', deletes({ number: 2 })],
  ['remove task 2', deletes({ number: 2 })],
  ['erase #4', deletes({ number: 4 })],
  ['delete the task about the dentist', deletes({ query: 'dentist' })],
  ['get rid of the milk one', deletes({ query: 'milk' })],
  ['drop buy milk from my list', deletes({ query: 'buy milk' })],
  ['delete tasks 1 and 3', deletes({ numbers: [1, 3] })],
  ['remove 1, 2 and 4', deletes({ numbers: [1, 2, 4] })],
  ['delete tasks 2-4', deletes({ numbers: [2, 3, 4] })],
  ['I need to delete task 2', deletes({ number: 2 })],
  ['I need to I need to delete task 2', adds('I need to delete task 2')],
  ['delete all completed tasks', deletes({ scope: 'completed' })],
  ['clear completed', deletes({ scope: 'completed' })],
  ['remove the finished ones', deletes({ scope: 'completed' })],
  ['delete everything', deletes({ scope: 'all' })],
  ['delete all my tasks', deletes({ scope: 'all' })],
  ['clear my list', deletes({ scope: 'all' })],
  ['delete it', says(WHICH_TASK)],

  ['delete the first one', says(WHICH_TASK)],
  ['mark the last one done', says(WHICH_TASK)],

  ['yes', says(NOTHING_TO_CONFIRM)],
  ['yes delete', says(NOTHING_TO_CONFIRM)],
  ['no', says(NOTHING_TO_CONFIRM)],
  ['cancel', says(NOTHING_TO_CONFIRM)],
  ['never mind', says(NOTHING_TO_CONFIRM)],

  ["what's the weather like today?", says(OFF_TOPIC)],
  ['tell me a joke', says(OFF_TOPIC)],
  ['who won the football game last night?', says(OFF_TOPIC)],
  ['what is 12 * 7', says(OFF_TOPIC)],
  ['write me a poem about cats', says(OFF_TOPIC)],
  ['give me a recipe for pancakes', says(OFF_TOPIC)],
  ['What is the capital of France?', says(OFF_TOPIC)],

  // a request that leaves out what it needs asks for it
  ['add a task', says(TITLE_MISSING)],
  ['add', says(TITLE_MISSING)],
  ['please create a new task', says(TITLE_MISSING)],
  ['rename task 1 to', says(NEW_TITLE_MISSING)],
  ['rename task 1', says(NEW_TITLE_MISSING)],
  ['change the title of the milk task to', says(NEW_TITLE_MISSING)],
  ['change task 2 to', says(NEW_TITLE_MISSING)],
  ['update task 1', says(CHANGE_MISSING)],
  ['edit the dentist task', says(CHANGE_MISSING)],
  ['rename it to', says(WHICH_TASK)],
  ['update it', says(WHICH_TASK)],
  // a change named alone: which task, never the menu
  ['delete', says(WHICH_TASK)],
  ['complete', says(WHICH_TASK)],
  ['Remove a task, please', says(WHICH_TASK)],
  ['mark as done', says(WHICH_TASK)],
  ['finish the task', says(WHICH_TASK)],
  ['update', says(WHICH_TASK)],
  ['change the priority', says(TASK_AND_PRIORITY_MISSING)],
  ['prioritise', says(TASK_AND_PRIORITY_MISSING)],
  ['change the priority of task 2', says(PRIORITY_MISSING)],
  ['set the priority of task 2 to high', updates({ number: 2, priority: 'high' })],

  ['banana', says(CLARIFY)],
  ['change my mind', says(CLARIFY)],
  ['', says(CLARIFY)],
  // There is no tool to reopen a task; completing it would do the opposite of what was asked.
  ['mark task 2 as not done', says(CLARIFY)],
];

describe(OfflineLanguageModel.name, () => {
  const sut = new OfflineLanguageModel();

  describe('understands a user sentence', () => {
    it.each(PHRASINGS)('%j', async (phrase, expected) => {
      await expect(answerOf(sut, [user(phrase)])).resolves.toEqual(expected);
    });
  });
});
