import request from 'supertest';
import type { SignedInUser } from './accounts';

/** One server-sent event of `/chat/stream`: its name and its JSON data. */
export interface SseEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** A `/chat/stream` body, read as its events in order. */
export function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      return {
        event: lines.find((line) => line.startsWith('event: '))!.slice(7),
        data: JSON.parse(lines.find((line) => line.startsWith('data: '))!.slice(6)) as Record<string, unknown>,
      };
    });
}

/** POST /api/:userId/chat/stream, the response's body kept whole as text (res.body) for parseSse. */
export function streamChat(http: string, user: SignedInUser, body: object): request.Test {
  return request(http)
    .post(`/api/${user.userId}/chat/stream`)
    .set(user.auth)
    .send(body)
    .buffer(true)
    .parse((response, done) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => done(null, text));
    });
}
