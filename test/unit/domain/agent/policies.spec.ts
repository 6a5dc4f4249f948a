import { deletionPrompt, interpretConfirmationReply } from '../../../../src/domain/agent/confirmation';
import { asksAQuestion, decisionOf } from '../../../../src/domain/agent/decision';
import { classifyModelFailure, TREATMENTS } from '../../../../src/domain/agent/failures';
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
  });

  it('records a requested tool that failed as INVOKE_TOOL, not as a plain answer', () => {
    expect(decisionOf({ ...base, toolsRequested: 1, lastToolErrorCode: 'TASK_NOT_FOUND', finalText: 'Not there.' })).toBe('INVOKE_TOOL');
    expect(decisionOf({ ...base, toolsRequested: 2, lastToolErrorCode: 'INVALID_ARGUMENTS', finalText: 'That title is too long.' })).toBe(
      'INVOKE_TOOL',
    );
  });

  it('records a question put to the person without tools as ASK_CLARIFICATION', () => {
    expect(decisionOf({ ...base, finalText: 'Which task do you mean?' })).toBe('ASK_CLARIFICATION');
    expect(decisionOf({ ...base, finalText: "I'm not sure. Do you want to add a task or see your list?" })).toBe('ASK_CLARIFICATION');
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
    expect(TREATMENTS.UNKNOWN.userSees).toBe('An unexpected error occurred. Please try again.');
    expect(TREATMENTS.RATE_LIMITED.retryable).toBe(true);
    expect(TREATMENTS.INVALID_ARGUMENTS.auditStatus).toBe('rejected');
  });
});
