import { interpretConfirmationReply } from '../../../../src/domain/agent/confirmation';
import { deletionPrompt } from '../../../../src/domain/todo/deletion';
import { asksAQuestion, asksToClarify, decisionOf } from '../../../../src/domain/agent/decision';
import {
  classifyModelFailure,
  friendlyToolError,
  NO_TOOL_ERROR_WORDING,
  TREATMENTS,
  turnFailure,
} from '../../../../src/domain/agent/failures';
import { TODO_TOOL_ERRORS } from '../../../../src/domain/todo/tool-errors';
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
    ['a 1 000-character name', call('x'.repeat(1000), '{}'), 'UNKNOWN_TOOL', /no tool named "x{63}…"/],
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
  const base = { confirmationRequested: false, toolsRequested: 0, toolsSucceeded: 0, lastToolErrorCode: null, finalText: 'Hi!' };
  it('maps turns to decision types', () => {
    expect(decisionOf(base)).toBe('RESPOND_ONLY');
    expect(decisionOf({ ...base, toolsRequested: 1, toolsSucceeded: 1 })).toBe('INVOKE_TOOL');
    expect(decisionOf({ ...base, toolsRequested: 1, toolsSucceeded: 1, confirmationRequested: true })).toBe('REQUEST_CONFIRMATION');
    expect(decisionOf({ ...base, toolsRequested: 1, lastToolErrorCode: 'AMBIGUOUS_TASK', finalText: 'Which one?' })).toBe(
      'ASK_CLARIFICATION',
    );
    expect(decisionOf({ ...base, finalText: 'Sorry, I can only help with your task list.' })).toBe('RESPOND_ONLY');
  });

  it('goes by what the model did: a tool call is INVOKE_TOOL and a question to confirm is REQUEST_CONFIRMATION, whatever the words', () => {
    const asking = 'Which task do you mean: 1. Buy milk or 2. Buy oat milk?';
    expect(decisionOf({ ...base, toolsRequested: 1, toolsSucceeded: 1, finalText: 'Here are your tasks. Anything else?' })).toBe(
      'INVOKE_TOOL',
    );
    expect(decisionOf({ ...base, toolsRequested: 1, toolsSucceeded: 1, finalText: asking })).toBe('INVOKE_TOOL');
    expect(decisionOf({ ...base, toolsRequested: 1, confirmationRequested: true, finalText: asking })).toBe('REQUEST_CONFIRMATION');
    // A clarifying error after a call that did something is not only a question.
    expect(decisionOf({ ...base, toolsRequested: 2, toolsSucceeded: 1, lastToolErrorCode: 'MISSING_TARGET', finalText: asking })).toBe(
      'INVOKE_TOOL',
    );
  });

  it('records a requested tool that failed as INVOKE_TOOL, not as a plain answer', () => {
    expect(decisionOf({ ...base, toolsRequested: 1, lastToolErrorCode: 'TASK_NOT_FOUND', finalText: 'Not there.' })).toBe('INVOKE_TOOL');
    expect(decisionOf({ ...base, toolsRequested: 2, lastToolErrorCode: 'INVALID_ARGUMENTS', finalText: 'That title is too long.' })).toBe(
      'INVOKE_TOOL',
    );
  });

  it('records a question put to the person without tools as ASK_CLARIFICATION only when it asks for what is needed to act', () => {
    expect(decisionOf({ ...base, finalText: 'Which task do you mean?' })).toBe('ASK_CLARIFICATION');
    expect(decisionOf({ ...base, finalText: "I'm not sure. Do you want to add a task or see your list?" })).toBe('RESPOND_ONLY');
    expect(decisionOf({ ...base, finalText: "I'm not sure what you'd like to do. Do you want to add a task or see your list?" })).toBe(
      'ASK_CLARIFICATION',
    );
    expect(decisionOf({ ...base, finalText: 'Hi! How can I help you today?' })).toBe('RESPOND_ONLY');
  });
});

describe(asksToClarify.name, () => {
  it.each([
    // a choice between candidates
    ['Which task do you mean: 1. Buy milk or 2. Buy oat milk?', true],
    ["I found multiple tasks about 'call'. Which one: 1. Call mum or 2. Call the bank?", true],
    ['The list I showed you has 3 tasks. Which one do you mean?', true],
    ['Did you mean task 2, Dentist?', true],
    ['So, which one should I complete?', true],
    // a missing detail
    ["Could you provide more details about the task's title?", true],
    ["Could you provide more details about which task you mean? You can say its number, like 'task 2'.", true],
    ['What should the new title be?', true],
    ['OK. What would you like to change: its title or its priority?', true],
    ['Can you tell me the new name?', true],
    // what the person meant, after not understanding
    ["I'm not sure what you'd like to do. Do you want to add a task, see your list or change one?", true],
    ["Sorry, I didn't understand that. Could you rephrase it?", true],
    // courtesy: greetings, offers of more help, refusals, answers
    ['Hi! How can I help you today?', false],
    ['Anything else?', false],
    ["Got it! Added 'Buy milk' to your list. Anything else?", false],
    ["Great! I've marked 'Buy milk' as complete. Would you like to see what's left?", false],
    ['Updated! What else would you like to change?', false],
    ['Is there anything else I can help you with?', false],
    ['Sorry, I can only help with your task list. What would you like to do with your tasks?', false],
    ["Sorry, I can't help with the weather. Can I help with your tasks instead?", false],
    ["Hi! I'm Bridle. Try 'add buy milk' or 'which tasks are left?'.", false],
    ["I can't help with that request. Could you rephrase it?", false],
    ['That request is too complex. Could you break it into smaller steps?', false],
    ["You're all caught up!", false],
  ])('%s → %s', (text, expected) => {
    expect(asksToClarify(text)).toBe(expected);
  });
});

describe(asksAQuestion.name, () => {
  it.each([
    ['Which one did you mean?', true],
    ["Try 'add buy milk' or 'what's left?'.", false],
    ['Say "what\'s left?" to see them. Anything else?', true],
    ["I'm done. You're all caught up!", false],
    ['Hi! How can I help?', true],
  ])('%s → %s', (text, expected) => {
    expect(asksAQuestion(text)).toBe(expected);
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
