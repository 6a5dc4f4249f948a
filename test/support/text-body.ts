import type { Test } from 'supertest';

/** Has supertest keep a streamed body whole as text (NDJSON, CSV), where it parses only JSON and forms: the text is `res.body`. */
export function asText(req: Test): Test {
  return req.buffer(true).parse((stream, done) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => done(null, text));
  });
}
