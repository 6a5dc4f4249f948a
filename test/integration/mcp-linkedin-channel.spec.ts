import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChannelError } from '../../src/domain/outreach/channel-errors';
import {
  IDEMPOTENCY_KEY_META,
  McpLinkedInChannel,
  McpLinkedInConnectError,
  type McpLinkedInTarget,
  SESSION_META,
} from '../../src/infrastructure/outreach/linkedin/mcp-linkedin-channel';
import {
  FakeLinkedInMcpServer,
  type FakeLinkedInOptions,
  FORBIDDEN_TOOL,
  fakeLinkedInStdioCommand,
  type RecordedCall,
} from '../fixtures/fake-linkedin-mcp-server';

/** A fake LinkedIn MCP server, reachable one way or another. */
interface RunningFake {
  readonly target: McpLinkedInTarget;
  calls(): RecordedCall[];
  stop(): Promise<void>;
}

const scratch = mkdtempSync(join(tmpdir(), 'bridle-linkedin-mcp-'));
let stdioRuns = 0;

async function overHttp(options?: FakeLinkedInOptions): Promise<RunningFake> {
  const fake = await FakeLinkedInMcpServer.start(options);
  return { target: { url: fake.url }, calls: () => fake.calls, stop: () => fake.stop() };
}

/** The child is started by connect and ended by close; the fake only owns its record file. */
function overStdio(options?: FakeLinkedInOptions): Promise<RunningFake> {
  const recordFile = join(scratch, `calls-${++stdioRuns}.jsonl`);
  const calls = (): RecordedCall[] => {
    let text: string;
    try {
      text = readFileSync(recordFile, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as RecordedCall);
  };
  return Promise.resolve({ target: fakeLinkedInStdioCommand(recordFile, options), calls, stop: () => Promise.resolve() });
}

const FIELDS = ['name', 'headline', 'email'] as const;
const noDeadline = (): AbortSignal => new AbortController().signal;

async function failureOf(promise: Promise<unknown>): Promise<ChannelError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ChannelError);
  return error as ChannelError;
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in 5 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each([
  ['Streamable HTTP', overHttp],
  ['stdio', overStdio],
])(`${McpLinkedInChannel.name} over %s`, (_transport, startFake) => {
  let fake: RunningFake;
  let sut: McpLinkedInChannel;

  beforeAll(async () => {
    fake = await startFake();
    sut = await McpLinkedInChannel.connect(fake.target);
  });

  afterAll(async () => {
    await sut?.close();
    await fake?.stop();
  });

  const lastCall = (): RecordedCall => fake.calls().at(-1)!;

  it('scrapes the requested fields, dropping other fields and non-string values', async () => {
    const profile = await sut.scrapeProfile({
      profileUrl: 'https://www.linkedin.com/in/ada',
      fields: FIELDS,
      idempotencyKey: 'key-scrape-1',
      signal: noDeadline(),
    });

    expect(profile).toEqual({ name: 'Ada Lovelace', headline: 'Analyst of engines', email: null });
    expect(lastCall()).toEqual({
      tool: 'linkedin_scrape_profile',
      args: { profileUrl: 'https://www.linkedin.com/in/ada', fields: ['name', 'headline', 'email'] },
      meta: { [IDEMPOTENCY_KEY_META]: 'key-scrape-1' },
    });
  });

  it('reads a profile sent only as JSON text, and drops a field whose value is not a string', async () => {
    const profile = await sut.scrapeProfile({
      profileUrl: 'https://www.linkedin.com/in/text-only-odd-values',
      fields: ['name', 'headline'],
      idempotencyKey: 'key-scrape-2',
      signal: noDeadline(),
    });

    expect(profile).toEqual({ name: 'Ada Lovelace' });
  });

  it("sends a message and returns the server's id", async () => {
    const sent = await sut.sendMessage({
      profileUrl: 'https://www.linkedin.com/in/ada',
      message: 'Hello Ada',
      idempotencyKey: 'key-send-1',
      signal: noDeadline(),
    });

    expect(sent.messageId).toMatch(/^msg-/);
    expect(lastCall()).toEqual({
      tool: 'linkedin_send_message',
      args: { profileUrl: 'https://www.linkedin.com/in/ada', message: 'Hello Ada' },
      meta: { [IDEMPOTENCY_KEY_META]: 'key-send-1' },
    });
  });

  it('takes the id from `id`, or falls back to the idempotency key', async () => {
    const call = { message: 'Hi', signal: noDeadline() };
    const idOnly = await sut.sendMessage({ ...call, profileUrl: 'https://www.linkedin.com/in/id-only', idempotencyKey: 'key-send-2' });
    const noId = await sut.sendMessage({ ...call, profileUrl: 'https://www.linkedin.com/in/no-id', idempotencyKey: 'key-send-3' });

    expect(idOnly.messageId).toMatch(/^msg-/);
    expect(noId.messageId).toBe('key-send-3');
  });

  it.each([
    ['session-expired', 'SESSION_EXPIRED'],
    ['rate-limited', 'RATE_LIMITED'],
    ['not-found', 'TARGET_NOT_FOUND'],
    ['refused', 'REJECTED'],
  ])('maps an isError result for %s to %s, not performed', async (profile, code) => {
    const error = await failureOf(
      sut.sendMessage({
        profileUrl: `https://www.linkedin.com/in/${profile}`,
        message: 'Hi',
        idempotencyKey: `key-${profile}`,
        signal: noDeadline(),
      }),
    );

    expect(error).toMatchObject({ code, performed: 'no' });
  });

  it('maps an expired session on a scrape too', async () => {
    const error = await failureOf(
      sut.scrapeProfile({
        profileUrl: 'https://www.linkedin.com/in/session-expired',
        fields: FIELDS,
        idempotencyKey: 'key-scrape-3',
        signal: noDeadline(),
      }),
    );

    expect(error).toMatchObject({ code: 'SESSION_EXPIRED', performed: 'no' });
  });

  it('a message cut off by its deadline is a TIMEOUT that maybe went out', async () => {
    const deadline = new AbortController();
    const pending = sut.sendMessage({
      profileUrl: 'https://www.linkedin.com/in/slow',
      message: 'Hi',
      idempotencyKey: 'key-slow-send',
      signal: deadline.signal,
    });
    await until(() => fake.calls().some((call) => call.meta?.[IDEMPOTENCY_KEY_META] === 'key-slow-send'));
    deadline.abort();

    expect(await failureOf(pending)).toMatchObject({ code: 'TIMEOUT', performed: 'maybe' });
  });

  it('a scrape cut off by its deadline is a TIMEOUT that did nothing', async () => {
    const pending = sut.scrapeProfile({
      profileUrl: 'https://www.linkedin.com/in/slow',
      fields: FIELDS,
      idempotencyKey: 'key-slow-scrape',
      signal: AbortSignal.timeout(200),
    });

    expect(await failureOf(pending)).toMatchObject({ code: 'TIMEOUT', performed: 'no' });
  });

  it('does not call at all once the deadline has passed', async () => {
    const before = fake.calls().length;
    const error = await failureOf(
      sut.sendMessage({
        profileUrl: 'https://www.linkedin.com/in/ada',
        message: 'Hi',
        idempotencyKey: 'key-late',
        signal: AbortSignal.abort(),
      }),
    );

    expect(error).toMatchObject({ code: 'TIMEOUT', performed: 'no' });
    expect(fake.calls()).toHaveLength(before);
  });

  it('sends the session in _meta once useSession was called', async () => {
    await sut.useSession('li_at=fresh-session');
    await sut.scrapeProfile({
      profileUrl: 'https://www.linkedin.com/in/ada',
      fields: ['name'],
      idempotencyKey: 'key-session-1',
      signal: noDeadline(),
    });
    expect(lastCall().meta).toEqual({ [IDEMPOTENCY_KEY_META]: 'key-session-1', [SESSION_META]: 'li_at=fresh-session' });

    await sut.sendMessage({
      profileUrl: 'https://www.linkedin.com/in/ada',
      message: 'Hi',
      idempotencyKey: 'key-session-2',
      signal: noDeadline(),
    });
    expect(lastCall().meta).toEqual({ [IDEMPOTENCY_KEY_META]: 'key-session-2', [SESSION_META]: 'li_at=fresh-session' });
  });

  it('cannot say what happened under a key', async () => {
    await expect(sut.find('key-send-1')).resolves.toBe('unknowable');
  });

  it(`never calls ${FORBIDDEN_TOOL}, though the server offers it`, () => {
    const tools = new Set(fake.calls().map((call) => call.tool));

    expect(tools).toEqual(new Set(['linkedin_scrape_profile', 'linkedin_send_message']));
  });

  it('refuses to connect to a server without linkedin_send_message, naming it', async () => {
    const partial = await startFake({ omitTools: ['linkedin_send_message'] });
    try {
      const connecting = McpLinkedInChannel.connect(partial.target);

      await expect(connecting).rejects.toThrow(McpLinkedInConnectError);
      await expect(connecting).rejects.toThrow(
        /does not offer linkedin_send_message.*it offers: linkedin_delete_account, linkedin_scrape_profile/,
      );
    } finally {
      await partial.stop();
    }
  });
});

describe(`${McpLinkedInChannel.name} when the server goes away`, () => {
  it('a message whose connection fails is UNAVAILABLE and maybe went out; a scrape did nothing', async () => {
    const fake = await FakeLinkedInMcpServer.start();
    const sut = await McpLinkedInChannel.connect({ url: fake.url });
    try {
      await fake.stop();

      const send = await failureOf(
        sut.sendMessage({
          profileUrl: 'https://www.linkedin.com/in/ada',
          message: 'Hi',
          idempotencyKey: 'key-gone-1',
          signal: noDeadline(),
        }),
      );
      const scrape = await failureOf(
        sut.scrapeProfile({
          profileUrl: 'https://www.linkedin.com/in/ada',
          fields: FIELDS,
          idempotencyKey: 'key-gone-2',
          signal: noDeadline(),
        }),
      );

      expect(send).toMatchObject({ code: 'UNAVAILABLE', performed: 'maybe' });
      expect(scrape).toMatchObject({ code: 'UNAVAILABLE', performed: 'no' });
    } finally {
      await sut.close();
    }
  });

  it('a call past timeoutMs is a TIMEOUT', async () => {
    const fake = await FakeLinkedInMcpServer.start();
    const sut = await McpLinkedInChannel.connect({ url: fake.url }, { timeoutMs: 200 });
    try {
      const error = await failureOf(
        sut.sendMessage({
          profileUrl: 'https://www.linkedin.com/in/slow',
          message: 'Hi',
          idempotencyKey: 'key-timeout',
          signal: noDeadline(),
        }),
      );

      expect(error).toMatchObject({ code: 'TIMEOUT', performed: 'maybe' });
    } finally {
      await sut.close();
      await fake.stop();
    }
  });

  it('connect fails clearly when nothing listens', async () => {
    const fake = await FakeLinkedInMcpServer.start();
    const url = fake.url;
    await fake.stop();

    await expect(McpLinkedInChannel.connect({ url })).rejects.toThrow(new RegExp(`Could not connect to the LinkedIn MCP server at ${url}`));
  });

  it('connect fails clearly when the command does not exist', async () => {
    await expect(McpLinkedInChannel.connect({ command: join(scratch, 'no-such-server') })).rejects.toThrow(McpLinkedInConnectError);
  });
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));
