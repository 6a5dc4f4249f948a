import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export type ElicitAnswer =
  { action: 'accept'; content: Record<string, string | number | boolean | string[]> } | { action: 'decline' | 'cancel' };

/**
 * The official v2 SDK client pinned to the 2026-07-28 revision (or, with `negotiate`, choosing
 * it from `server/discover`), as a person's token: no
 * `initialize`, no session, the version and capabilities in every request's `_meta`. With
 * `answer`, it declares form elicitation and answers every question with it (the SDK then
 * retries the call with the answer and the server's `requestState`, as MRTR has it).
 */
export async function connect2026(
  mcpUrl: string,
  token: string,
  options: { answer?: (message: string) => ElicitAnswer | Promise<ElicitAnswer>; fetch?: typeof fetch; negotiate?: boolean } = {},
): Promise<Client> {
  const client = new Client(
    { name: 'e2e-2026', version: '1.0.0' },
    {
      capabilities: options.answer ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: options.negotiate ? 'auto' : { pin: '2026-07-28' } },
    },
  );
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler('elicitation/create', async (request) => answer((request.params as { message: string }).message));
  }
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    }),
  );
  return client;
}
