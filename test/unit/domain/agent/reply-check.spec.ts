import { UNFIT_REPLY } from '../../../../src/domain/agent/failures';
import { TODO_TOOL_ERRORS } from '../../../../src/domain/todo/tool-errors';
import {
  checkedReply,
  FOUND_MAX_CHARS,
  isInternalCode,
  isMostlyJson,
  replyProblem,
  type ReplyVocabulary,
  toolCallsInWords,
} from '../../../../src/domain/agent/reply-check';
import { TODO_TOOLS } from '../../../../src/application/todo/tools/todo-tool-definitions';
import { TodoTools } from '../../../../src/application/todo/tools/todo-tools';

/** The built-in tools' sentences, as a turn's registry says them. */
const sentence = (call: { readonly tool: string; readonly result?: unknown }) => TodoTools.builtIn.sentence(call);

const vocabulary: ReplyVocabulary = { toolNames: TODO_TOOLS.map((tool) => tool.name), echoes: [] };

describe(replyProblem.name, () => {
  it.each([
    "Added 'Buy milk' to your list.",
    'You have 3 tasks: 1. Buy milk, 2. Call mum, 3. Pay rent.',
    'Here are your tasks:\n1. ☐ Buy milk (high priority)\n2. ✓ Call mum\n…and 2 more: the task list shows them all.',
    "You can say things like 'add buy milk', e.g. 'add call mum at 10:30'.",
    'Your dentist appointment is at 10:30, i.e. before lunch.',
    'Done! I marked task 2 as complete. ASAP items are at the top; TODO: nothing else.',
    "Do you really want to delete 'Dentist'? Reply 'yes delete' to confirm.",
    'Sure. [1] Buy milk [2] Call mum',
    "I've added '{draft} notes' to your list.",
    'You have no tasks: [] is what the list looks like when empty, so add one!',
    'I can add, list, complete, update or delete tasks. Which task do you mean?',
    'The U.S. office and the U.K. team both have tasks: 2 each.',
    'Version 1.2.3 of the report is due; it is 20 MB.',
    'Write to ada_lovelace@example.com or see https://example.com/my_page?task_id=3 and www.example.com/a_b.',
    'Your iPhone and macOS tasks are done.',
    'The fence must be painted by 5pm; title it however you like.',
    'This is arguments enough. The list is short.',
  ])('finds nothing wrong with %j', (text) => {
    expect(replyProblem(text, vocabulary)).toBeNull();
  });

  it.each([
    ['a JSON object', '{"status":"ok","task":{"number":1}}', 'json', undefined],
    ['a JSON array', '[{"number":1,"title":"Buy milk"}]', 'json', undefined],
    ['an empty object', '{}', 'json', undefined],
    ['JSON in a fence', '```json\n{"ok": true}\n```', 'json', undefined],
    ['mostly JSON after a word', 'Result: {"task": {"number": 1, "title": "Buy milk"}}', 'json', undefined],
    ['JSON cut at the reply bound', `Here: {"tasks": [{"title": "${'x'.repeat(300)} …`, 'json', undefined],
    ['a Python dict', "{'title': 'Buy milk', 'priority': 'high'}", 'json', undefined],
    ['a bare code', 'TASK_NOT_FOUND', 'internal_code', 'TASK_NOT_FOUND'],
    ['a code in a sentence', 'Sorry, that gave CONFIRMATION_REQUIRED.', 'internal_code', 'CONFIRMATION_REQUIRED'],
    ['a dotted code', 'It failed: OUTREACH.QUOTA_EXCEEDED', 'internal_code', 'OUTREACH.QUOTA_EXCEEDED'],
    ['an HTTP code', 'Error HTTP.RATE_LIMITED.', 'internal_code', 'HTTP.RATE_LIMITED'],
    ['a namespaced one-word code', 'You are AUTH.UNAUTHENTICATED right now', 'internal_code', 'AUTH.UNAUTHENTICATED'],
    ['additionalProperties', 'The call had additionalProperties set to false.', 'schema_text', 'additionalproperties'],
    ['a validator message', "data must have required property 'title'", 'schema_text', 'required property'],
    ['inputSchema', 'Per the inputSchema, title is needed.', 'schema_text', 'inputschema'],
    ['a type key', 'The schema says "type": "object".', 'json', undefined],
    ['a JSON key and value', 'I set "priority": "high" for it.', 'json', undefined],
    ["an object's start", 'Sure: {"title": Buy milk', 'json', undefined],
    ['a small array', 'The numbers were [1,2] this time, which is a lot of words around it.', 'json', undefined],
    ["Ajv's length message", 'That did not work: title must NOT have more than 200 characters', 'schema_text', 'must not have more than'],
    [
      "Ajv's enum message",
      'priority must be equal to one of the allowed values',
      'schema_text',
      'must be equal to one of the allowed val…',
    ],
    ["Ajv's pattern message", 'It must match pattern "^[a-z]+$"', 'schema_text', 'must match pattern'],
    ["Ajv's type message", '/number must be integer', 'schema_text', 'must be integer'],
    ["Ajv's limit message", 'number must be >= 1, sorry', 'schema_text', 'must be >= 1'],
    ['a UUID', 'Deleted task 3f1c2b9e-8a4d-4f6b-9c2e-1d5a7b8c9d0e.', 'identifier', '3f1c2b9e-8a4d-4f6b-9c2e-1d5a7b8c9d0e'],
    ['a snake_case field', 'I need the task_id first.', 'identifier', 'task_id'],
    ['a camelCase field', 'Your userId is not set.', 'identifier', 'userId'],
    ['a stack frame', 'Oops: at run (/app/dist/main.js:12:5)', 'stack_trace', '.js:1'],
    ["an engine's error", "TypeError: Cannot read properties of undefined (reading 'slice')", 'stack_trace', 'TypeError'],
    ['an errno name', 'The connection failed with ECONNREFUSED.', 'internal_code', 'ECONNREFUSED'],
    ["Bridle's own schema message", 'arguments.title is required', 'schema_text', 'arguments.t'],
    ['a tool name', 'I used add_task to add it.', 'tool_name', 'add_task'],
    ['a tool name at the end of a sentence', 'Next time, call list_tasks.', 'tool_name', 'list_tasks'],
    ['a tool name in other case', 'Running DELETE_TASK now', 'tool_name', 'DELETE_TASK'],
  ])('finds %s', (_, text, rule, found) => {
    expect(replyProblem(text, vocabulary)).toEqual(found === undefined ? { rule } : { rule, found });
  });

  it("lets the person's own words and data be said back, however they look", () => {
    const echoes = ['add Fix CI_TIMEOUT', '{"task":{"number":4,"title":"Read the JSON inputSchema notes for add_task"}}'];
    for (const text of ["Added 'Fix CI_TIMEOUT' to your list.", "Task 4 is 'Read the JSON inputSchema notes for add_task'."]) {
      expect(replyProblem(text, { ...vocabulary, echoes })).toBeNull();
    }
    // Echoes spare only what they hold.
    expect(replyProblem("Added 'Fix CI_TIMEOUT': TASK_BUSY", { ...vocabulary, echoes })).toEqual({
      rule: 'internal_code',
      found: 'TASK_BUSY',
    });
  });

  it('bounds what it found', () => {
    const code = `A_${'B'.repeat(200)}`;
    const problem = replyProblem(`Failed: ${code}`, vocabulary);
    expect(problem).toMatchObject({ rule: 'internal_code' });
    expect(problem!.found!.length).toBe(FOUND_MAX_CHARS);
  });

  it('reads hostile text to its end: long runs of brackets, spaces, dots and capitals', () => {
    const long = 50_000;
    for (const text of [
      '{'.repeat(long),
      `[${' '.repeat(long)}x`,
      `${'.'.repeat(long)}A`,
      `${'A_'.repeat(long)}!`,
      `${'{ '.repeat(long)}`,
      `"a"${' '.repeat(long)}x`,
      `${'[1'.repeat(long)}`,
      `[${'1'.repeat(long)}`,
      `${'{ "'.repeat(long)}`,
      `${'a_'.repeat(long)}b`,
      `${'aB'.repeat(long)}`,
      `must be ${'1'.repeat(long)}`,
      `${':1'.repeat(long)})`,
    ]) {
      expect(() => replyProblem(text, vocabulary)).not.toThrow();
    }
  });
});

describe(isMostlyJson.name, () => {
  it.each([
    [
      'a small object in a long sentence',
      'I added it and the tool said {"ok": true}, so it is on your list now and you can see it.',
      false,
    ],
    ['an object that is half the reply', 'Done. {"ok": true, "n": 1}', true],
    ['prose', 'Just words.', false],
    ['an empty reply', '   ', false],
  ])('%s → %s', (_, text, expected) => {
    expect(isMostlyJson(text)).toBe(expected);
  });
});

describe(isInternalCode.name, () => {
  it.each([
    ['TASK_NOT_FOUND', true],
    ['TODO.TASK_BUSY', true],
    ['VALIDATION.INVALID_CURSOR', true],
    ['ASAP', false],
    ['U.S', false],
    ['A.M', false],
    ['_PRIVATE', false],
    ['TRAILING_', false],
    ['Task_Not_Found', false],
    ['10_30', false],
  ])('%s → %s', (word, expected) => {
    expect(isInternalCode(word)).toBe(expected);
  });
});

describe(toolCallsInWords.name, () => {
  const added = { tool: 'add_task', success: true, result: { task: { number: 1, title: 'Buy milk' } } };

  it('says what the successful calls did, from their results', () => {
    expect(toolCallsInWords([added], sentence, TODO_TOOL_ERRORS)).toBe("Added 'Buy milk' to your list.");
  });

  it("adds the last call's failure in its friendly sentence, never its code", () => {
    const failed = { tool: 'complete_task', success: false, error: { code: 'TASK_NOT_FOUND', details: { number: 9 } } };
    expect(toolCallsInWords([added, failed], sentence, TODO_TOOL_ERRORS)).toBe(
      "Added 'Buy milk' to your list. I couldn't find task 9 in your list. Say 'show my tasks' to see their numbers.",
    );
  });

  it('leaves out a failure the model recovered from', () => {
    const refused = { tool: 'add_task', success: false, error: { code: 'INVALID_ARGUMENTS' } };
    expect(toolCallsInWords([refused, added], sentence, TODO_TOOL_ERRORS)).toBe("Added 'Buy milk' to your list.");
  });

  it('says "Done." after a success it cannot word, and apologises when nothing ran', () => {
    expect(toolCallsInWords([{ tool: 'add_task', success: true, result: {} }], sentence, TODO_TOOL_ERRORS)).toBe(UNFIT_REPLY.DONE);
    expect(toolCallsInWords([], sentence, TODO_TOOL_ERRORS)).toBe(UNFIT_REPLY.NO_WORDS);
  });
});

describe(checkedReply.name, () => {
  const fallback = () => 'FALLBACK';

  it('keeps a fit reply as it is', () => {
    const reply = {
      text: 'Hello!\n\nDo you really want to delete it?',
      modelWords: 'Hello!',
      serverSentences: ['Do you really want to delete it?'],
    };
    expect(checkedReply(reply, vocabulary, fallback)).toEqual({ text: reply.text, problem: null });
  });

  it("drops unfit model words for the server's own sentences", () => {
    const reply = {
      text: 'Calling delete_task.\n\nDo you really want to delete it?',
      modelWords: 'Calling delete_task.',
      serverSentences: ['Do you really want to delete it?'],
    };
    expect(checkedReply(reply, vocabulary, fallback)).toEqual({
      text: 'Do you really want to delete it?',
      problem: { rule: 'tool_name', found: 'delete_task' },
    });
  });

  it('falls back when the model words were all there was', () => {
    expect(checkedReply({ text: '{}', modelWords: '{}', serverSentences: [] }, vocabulary, fallback)).toEqual({
      text: 'FALLBACK',
      problem: { rule: 'json' },
    });
  });

  it("never judges the server's own sentences", () => {
    const reply = { text: 'TASK_NOT_FOUND', modelWords: '', serverSentences: ['TASK_NOT_FOUND'] };
    expect(checkedReply(reply, vocabulary, fallback).problem).toBeNull();
  });
});
