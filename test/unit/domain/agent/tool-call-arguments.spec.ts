import { streamedArgumentsText, toolArgumentsText } from '../../../../src/domain/agent/model-output';
import { parseToolCall } from '../../../../src/domain/agent/tool-call-validation';

const call = (args: string) => ({ id: 'c1', name: 'add_task', arguments: args });

describe(toolArgumentsText.name, () => {
  it.each([
    ['a JSON string, as it came', '{"title":"Milk"}', '{"title":"Milk"}'],
    ['text that is not JSON, as it came', 'title=Milk', 'title=Milk'],
    ['an object, as its JSON', { title: 'Milk' }, '{"title":"Milk"}'],
    ['null, as JSON', null, 'null'],
    ['an array, as JSON', [1, 2], '[1,2]'],
    ['a number, as JSON', 42, '42'],
    ['a boolean, as JSON', true, 'true'],
    ['no arguments at all, as none', undefined, ''],
  ])('takes %s', (_, raw, text) => {
    expect(toolArgumentsText(raw)).toBe(text);
  });
});

describe(streamedArgumentsText.name, () => {
  it.each([
    ['text pieces, joined', ['{"title":', '"Milk"}'], '{"title":"Milk"}'],
    ['a null piece beside text, as nothing', [null, '{"title":', '"Milk"}'], '{"title":"Milk"}'],
    ['an empty first piece and an object', ['', { title: 'Milk' }], '{"title":"Milk"}'],
    ['null alone, as null', [null], 'null'],
    ['no pieces, as none', [undefined, undefined], ''],
  ])('takes %s', (_, pieces, text) => {
    expect(streamedArgumentsText(pieces)).toBe(text);
  });
});

describe(parseToolCall.name, () => {
  it('takes one JSON object, and no arguments as {}', () => {
    expect(parseToolCall(call('{"title":"Milk"}'), 1024)).toEqual({ ok: true, arguments: { title: 'Milk' } });
    expect(parseToolCall(call('  '), 1024)).toEqual({ ok: true, arguments: {} });
  });

  it.each([
    ['null', 'null', 'not null'],
    ['an array', '[{"title":"Milk"}]', 'not an array'],
    ['a number', '42', 'not a number'],
    ['a string', '"Milk"', 'not a string'],
    ['a boolean', 'false', 'not a boolean'],
  ])('refuses %s, telling the model what to send', (_, args, what) => {
    const parsed = parseToolCall(call(args), 1024);
    expect(parsed).toMatchObject({ ok: false, code: 'INVALID_ARGUMENTS' });
    expect(parsed.ok || parsed.message).toBe(
      `The arguments for add_task must be a JSON object, ${what}. Send one JSON object: {} when the tool needs none.`,
    );
  });

  it('refuses text that is not JSON', () => {
    expect(parseToolCall(call('title=Milk'), 1024)).toMatchObject({
      ok: false,
      code: 'MALFORMED_ARGUMENTS',
      message: expect.stringMatching(/not valid JSON/),
    });
  });
});
