import { interpretConfirmationReply } from '../../../../src/domain/agent/confirmation';
import { deletionPrompt } from '../../../../src/domain/todo/deletion';
import { clarifyingQuestion } from '../../../../src/domain/agent/clarification';
import { decisionOf, NO_TOOLS, type TurnFacts } from '../../../../src/domain/agent/decision';
import {
  classifyModelFailure,
  friendlyToolError,
  NO_TOOL_ERROR_WORDING,
  TREATMENTS,
  turnFailure,
} from '../../../../src/domain/agent/failures';
import { TODO_TOOL_ERRORS } from '../../../../src/domain/todo/tool-errors';
import { TODO_WORDS } from '../../../../src/application/todo/todo-words';
import {
  LanguageModelContentFilterError,
  LanguageModelError,
  LanguageModelRateLimitError,
  LanguageModelTimeoutError,
} from '../../../../src/domain/agent/language-model-errors';
import { canonicalJson, validateToolCall } from '../../../../src/domain/agent/tool-call-validation';
import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { AjvSchemaValidator } from '../../../../src/infrastructure/validation/ajv-schema-validator';

const call = (name: string, args: string) => ({ id: 'c1', name, arguments: args });
/** The validator the tool server uses: the messages below are the ones a model reads. */
const schemas = new AjvSchemaValidator();

describe(validateToolCall.name, () => {
  it('accepts a valid call and returns the parsed arguments', () => {
    expect(validateToolCall(call('add_task', '{"title":"Buy milk","priority":"high"}'), TODO_TOOLS, 16 * 1024, schemas)).toMatchObject({
      ok: true,
      arguments: { title: 'Buy milk', priority: 'high' },
      securityEvents: [],
    });
  });

  it('treats empty arguments as an empty object', () => {
    expect(validateToolCall(call('list_tasks', ''), TODO_TOOLS, 16 * 1024, schemas)).toMatchObject({ ok: true, arguments: {} });
  });

  it.each([
    ['an unknown tool', call('drop_tables', '{}'), 'UNKNOWN_TOOL', /no tool named "drop_tables".*add_task/],
    ['malformed JSON', call('add_task', '{"title": "x"'), 'MALFORMED_ARGUMENTS', /not valid JSON/],
    ['a JSON array', call('add_task', '[1]'), 'INVALID_ARGUMENTS', /must be a JSON object/],
    ['a missing required field', call('add_task', '{}'), 'INVALID_ARGUMENTS', /arguments.title is required/],
    ['a wrong type', call('complete_task', '{"number":"two"}'), 'INVALID_ARGUMENTS', /arguments.number must be a number/],
    ['a fraction', call('complete_task', '{"number":1.5}'), 'INVALID_ARGUMENTS', /whole number/],
    ['an enum miss', call('list_tasks', '{"status":"done"}'), 'INVALID_ARGUMENTS', /status must be one of/],
    ['an extra field', call('list_tasks', '{"limit":5}'), 'INVALID_ARGUMENTS', /arguments.limit is not an accepted argument/],
    ['a too-long title', call('add_task', JSON.stringify({ title: 'x'.repeat(201) })), 'INVALID_ARGUMENTS', /at most 200/],
    ['a bad array item', call('delete_task', '{"numbers":[1,0]}'), 'INVALID_ARGUMENTS', /numbers\[1\] must be at least 1/],
    // Names that an ordinary object inherits are arguments like any other, not schemas or prototypes.
    ['an inherited name', call('complete_task', '{"number":3,"constructor":{}}'), 'INVALID_ARGUMENTS', /constructor is a reserved key/],
    [
      'a __proto__ key',
      call('complete_task', '{"number":3,"__proto__":{"userId":"victim"}}'),
      'INVALID_ARGUMENTS',
      /__proto__ is a reserved key/,
    ],
    ['a NUL byte in a title', call('add_task', '{"title":"a\\u0000b"}'), 'INVALID_ARGUMENTS', /title contains a NUL character/],
    ['a lone surrogate', call('add_task', '{"title":"a\\ud800"}'), 'INVALID_ARGUMENTS', /title contains a lone surrogate/],
    ['a name with a NUL byte', call('add_task\u0000', '{}'), 'UNKNOWN_TOOL', /no tool named "add_task\uFFFD"/],
    ['a 1 000-character name', call('x'.repeat(1000), '{}'), 'UNKNOWN_TOOL', /no tool named "x{20,64}\[… 9\d\d characters cut\]"/],
    [
      'arguments past the byte limit',
      call('add_task', JSON.stringify({ title: 'x', description: 'y'.repeat(20_000) })),
      'ARGUMENTS_TOO_LARGE',
      /20\d{3} bytes; at most 16384/,
    ],
  ])('rejects %s with a message the model can act on', (_, request, code, message) => {
    const result = validateToolCall(request, TODO_TOOLS, 16 * 1024, schemas);
    expect(result).toMatchObject({ ok: false, code });
    expect(result.ok ? '' : result.message).toMatch(message);
  });

  it('discards identity fields and reports each as a security event', () => {
    const result = validateToolCall(
      call('add_task', JSON.stringify({ title: 'x', user_id: 'u2', userId: 'u3', ownerId: 'u4', account: 'u5' })),
      TODO_TOOLS,
      16 * 1024,
      schemas,
    );
    expect(result).toMatchObject({ ok: true, arguments: { title: 'x' } });
    expect(result.securityEvents.map((event) => event.field)).toEqual(['user_id', 'userId', 'ownerId', 'account']);
  });
});

describe(canonicalJson.name, () => {
  it('gives equal text for equal values whatever the key order', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: 2 }], a: 'x' })).toBe(canonicalJson({ a: 'x', b: [2, { c: 2, d: 1 }] }));
    expect(canonicalJson({ b: 1, a: undefined })).toBe('{"b":1}');
  });
});

describe(interpretConfirmationReply.name, () => {
  it.each(['yes delete', 'Yes', 'yes, delete it', 'y', 'OK', 'confirm', 'go ahead', 'yes please!'])('%j confirms', (text) => {
    expect(interpretConfirmationReply(text)).toBe('confirm');
  });
  it.each(['no', 'No thanks', 'cancel', 'nope', "don't", 'never mind', 'keep it'])('%j cancels', (text) => {
    expect(interpretConfirmationReply(text)).toBe('cancel');
  });
  it.each(['yes delete everything else too', 'add milk', 'what?', 'yesterday', 'not now, add bread'])('%j is a new request', (text) => {
    expect(interpretConfirmationReply(text)).toBe('other');
  });
});

describe(deletionPrompt.name, () => {
  it('names one task, or counts and names several', () => {
    expect(deletionPrompt(['Dentist'])).toBe("Do you really want to delete 'Dentist'? Reply 'yes delete' to confirm.");
    expect(deletionPrompt(['A', 'B', 'C'])).toBe("Do you really want to delete 3 tasks: 'A', 'B' and 'C'? Reply 'yes delete' to confirm.");
  });
});

describe(decisionOf.name, () => {
  const base: TurnFacts = { ...NO_TOOLS, clarifyingErrorCodes: TODO_WORDS.clarifyingErrorCodes };
  const vocabulary = { fields: ['title', 'description', 'priority', 'number'], actions: ['add', 'list', 'complete', 'update', 'delete'] };
  const seen = [
    { number: 2, title: 'Call mum' },
    { number: 3, title: 'Call the bank' },
  ];
  const type = (facts: Partial<TurnFacts>, reply: string) => decisionOf({ ...base, vocabulary, ...facts }, reply).type;

  it('maps turns to decision types', () => {
    expect(type({}, 'Hi!')).toBe('RESPOND_ONLY');
    expect(type({ toolsRequested: 1, changesMade: 1 }, 'Done.')).toBe('INVOKE_TOOL');
    expect(type({ toolsRequested: 1, changesMade: 1, confirmationRequested: true }, 'Sure?')).toBe('REQUEST_CONFIRMATION');
    expect(type({ toolsRequested: 1, lastToolErrorCode: 'AMBIGUOUS_TASK' }, 'Hmm.')).toBe('ASK_CLARIFICATION');
    expect(type({}, 'Sorry, I can only help with your task list.')).toBe('RESPOND_ONLY');
  });

  it('a change made is INVOKE_TOOL and a question to confirm is REQUEST_CONFIRMATION, whatever the words', () => {
    const asking = 'Are you referring to task 2 (Call mum) or task 3 (Call the bank)?';
    expect(type({ toolsRequested: 1, changesMade: 1, seen }, asking)).toBe('INVOKE_TOOL');
    expect(type({ toolsRequested: 1, confirmationRequested: true, seen }, asking)).toBe('REQUEST_CONFIRMATION');
    expect(type({ toolsRequested: 2, changesMade: 1, lastToolErrorCode: 'MISSING_TARGET' }, asking)).toBe('INVOKE_TOOL');
  });

  it('a read, then a question that asks which, is ASK_CLARIFICATION; a read, then an offer, INVOKE_TOOL', () => {
    expect(type({ toolsRequested: 1, seen }, 'Should I mark task 2 or task 3 as done?')).toBe('ASK_CLARIFICATION');
    expect(type({ toolsRequested: 1, seen }, 'Here are your tasks:\n2. Call mum\n3. Call the bank\nAnything else?')).toBe('INVOKE_TOOL');
  });

  it('a requested tool that failed without asking anything is INVOKE_TOOL', () => {
    expect(type({ toolsRequested: 1, lastToolErrorCode: 'TASK_NOT_FOUND' }, 'Not there.')).toBe('INVOKE_TOOL');
    expect(type({ toolsRequested: 2, lastToolErrorCode: 'INVALID_ARGUMENTS' }, 'That title is too long.')).toBe('INVOKE_TOOL');
  });

  it('carries the question asked', () => {
    expect(decisionOf({ ...base, vocabulary }, "Hmm, I'm not sure I follow. I need the new title. What should it be?")).toEqual({
      type: 'ASK_CLARIFICATION',
      clarificationQuestion: 'I need the new title. What should it be?',
    });
    expect(decisionOf({ ...base, vocabulary }, 'Anything else?').clarificationQuestion).toBeNull();
  });
});

describe(clarifyingQuestion.name, () => {
  const vocabulary = { fields: ['title', 'description', 'priority', 'number'], actions: ['add', 'list', 'complete', 'update', 'delete'] };
  const seen = [
    { number: 1, title: 'Buy milk' },
    { number: 2, title: 'Call mum' },
    { number: 3, title: 'Call the bank' },
  ];
  it.each([
    // a choice among candidates the model saw
    [
      'Are you referring to task 2 (Call mum) or task 3 (Call the bank)?',
      'Are you referring to task 2 (Call mum) or task 3 (Call the bank)?',
    ],
    ['Should I mark task 2 or task 3 as done?', 'Should I mark task 2 or task 3 as done?'],
    ['Should I mark tasks 2 or 3 as done?', 'Should I mark tasks 2 or 3 as done?'],
    ["I found multiple tasks about 'call'. Which one: 2. Call mum or 3. Call the bank?", 'Which one: 2. Call mum or 3. Call the bank?'],
    [
      "I found two: 'Call mum' and 'Call the bank'. Which one would you like to mark as done?",
      "I found two: 'Call mum' and 'Call the bank'. Which one would you like to mark as done?",
    ],
    ['The list I showed you has 3 tasks. Which one do you mean?', 'Which one do you mean?'],
    ['So, which one should I complete?', 'So, which one should I complete?'],
    ['Which task would you like me to delete?', 'Which task would you like me to delete?'],
    // a missing argument
    [
      "Could you provide more details about the task's title? For example: 'add buy milk'.",
      "Could you provide more details about the task's title?",
    ],
    ['Sorry. I need the new title. What should it be?', 'I need the new title. What should it be?'],
    ['What should the new title be?', 'What should the new title be?'],
    ['OK. What would you like to change: its title or its priority?', 'What would you like to change: its title or its priority?'],
    ['Can you tell me the new name?', 'Can you tell me the new name?'],
    // what the person meant
    [
      "I'm not sure what you meant. Did you mean to add a task, see your list or change one?",
      'Did you mean to add a task, see your list or change one?',
    ],
    ["Sorry, I didn't understand that. Could you rephrase it?", 'Could you rephrase it?'],
    // offers, refusals, answers
    ['I can only help with your to-do list. Which task would you like to work on?', null],
    ['Hi! How can I help you today?', null],
    ['Anything else?', null],
    ["Got it! Added 'Buy milk' to your list. Anything else?", null],
    ["Great! I've marked 'Buy milk' as complete. Would you like to see what's left?", null],
    ['Updated! What else would you like to change?', null],
    ['Would you like to add a description?', null],
    ['Sorry, I can only help with your task list. What would you like to do with your tasks?', null],
    ["Sorry, I can't help with the weather. Can I help with your tasks instead?", null],
    ["Hi! I'm Bridle. Try 'add buy milk' or 'which title is left?'.", null],
    ['That request is too complex. Could you break it into smaller steps?', null],
    ['Here are your tasks:\n1. Buy milk\n2. Call mum\n3. Call the bank\nAnything else?', null],
    ["You're all caught up!", null],
  ])('%j → %j', (text, expected) => {
    expect(clarifyingQuestion(text, seen, vocabulary)).toBe(expected);
  });
});

describe(classifyModelFailure.name, () => {
  it('maps adapter errors to failure classes with the specified sentences', () => {
    expect(TREATMENTS[classifyModelFailure(new LanguageModelRateLimitError('x'))].userSees).toBe(
      "I'm currently experiencing high demand. Please try again in a moment.",
    );
    expect(TREATMENTS[classifyModelFailure(new LanguageModelTimeoutError('x'))].userSees).toBe(
      'That request took too long. Please try a simpler query.',
    );
    expect(TREATMENTS[classifyModelFailure(new LanguageModelError('x'))].userSees).toBe(
      "I'm having trouble connecting to my AI service. Please try again.",
    );
    expect(classifyModelFailure(new LanguageModelContentFilterError('x'))).toBe('CONTENT_FILTERED');
    expect(classifyModelFailure(new TypeError('bug'))).toBe('UNKNOWN');
    expect(TREATMENTS.UNKNOWN.userSees).toBe('An unexpected error occurred. Please try again, or contact support if it keeps happening.');
    expect(TREATMENTS.RATE_LIMITED.retryable).toBe(true);
    expect(TREATMENTS.INVALID_ARGUMENTS.auditStatus).toBe('rejected');
  });
});

describe(turnFailure.name, () => {
  it('names the support contact after an unexpected failure when one is configured, and support in general when not', () => {
    expect(turnFailure('UNKNOWN', 'help@example.com')).toEqual({
      message: 'An unexpected error occurred. Please try again, or contact support at help@example.com if it keeps happening.',
      category: 'UNKNOWN',
    });
    expect(turnFailure('BAD_MODEL_REQUEST', 'https://example.com/help').message).toBe(
      'An unexpected error occurred. Please try again, or contact support at https://example.com/help if it keeps happening.',
    );
    expect(turnFailure('UNKNOWN').message).toBe(
      'An unexpected error occurred. Please try again, or contact support if it keeps happening.',
    );
    // A failure the person can act on keeps its own sentence.
    expect(turnFailure('RATE_LIMITED', 'help@example.com').message).toBe(TREATMENTS.RATE_LIMITED.userSees);
  });
});

describe(friendlyToolError.name, () => {
  it.each([
    [{ number: 9 }, "I couldn't find task 9 in your list. Say 'show my tasks' to see their numbers."],
    [{ query: 'gym' }, "I couldn't find a task about 'gym' in your list. Say 'show my tasks' to see what's on it."],
    [{}, "I couldn't find that task; it may have been deleted. Say 'show my tasks' to see what's on your list."],
    [{ scope: 'all' }, 'Your list is already empty.'],
  ])('words TASK_NOT_FOUND with %j and says what to do next', (details, sentence) => {
    expect(friendlyToolError({ code: 'TASK_NOT_FOUND', details }, TODO_TOOL_ERRORS)).toBe(sentence);
    expect(friendlyToolError({ code: 'TODO.TASK_NOT_FOUND', details }, TODO_TOOL_ERRORS)).toBe(sentence);
  });

  it('words AMBIGUOUS_TASK with its candidates, and MISSING_TARGET as the question which task', () => {
    const candidates = [
      { number: 2, title: 'Call mum' },
      { number: 3, title: 'Call the bank' },
    ];
    expect(friendlyToolError({ code: 'AMBIGUOUS_TASK', details: { query: 'call', candidates } }, TODO_TOOL_ERRORS)).toBe(
      "I found multiple tasks about 'call'. Which one: 2. Call mum or 3. Call the bank?",
    );
    expect(friendlyToolError({ code: 'MISSING_TARGET' }, TODO_TOOL_ERRORS)).toBe(
      "Could you provide more details about which task you mean? You can say its number, like 'task 2', or words from its title.",
    );
  });

  it("words a product's own code only in that product's words: elsewhere it is an unexpected error", () => {
    expect(friendlyToolError({ code: 'TASK_NOT_FOUND', details: { number: 9 } }, NO_TOOL_ERROR_WORDING)).toBe(TREATMENTS.UNKNOWN.userSees);
    expect(friendlyToolError({ code: 'INVALID_ARGUMENTS', details: { field: 'number', rule: 'required' } }, NO_TOOL_ERROR_WORDING)).toBe(
      'Could you provide more details about the number?',
    );
    expect(friendlyToolError({ code: 'INVALID_ARGUMENTS', details: { field: 'number', rule: 'required' } }, TODO_TOOL_ERRORS)).toBe(
      'Could you provide more details about the task number?',
    );
  });
});
