import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

/**
 * Streams `rows` as NDJSON, one JSON value per line, with backpressure: the next row is
 * asked for only when the socket has taken the earlier ones. A failure before the first
 * row is thrown before any header is sent (the exception filter answers it); a later one
 * cuts the response short. A client that leaves stops the reading.
 */
export async function writeNdjson<T>(res: Response, rows: AsyncIterable<T>, toLine: (row: T) => unknown): Promise<void> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  res.status(200);
  res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Accel-Buffering', 'no');
  async function* lines(): AsyncGenerator<string> {
    try {
      for (let next = first; !next.done; next = await iterator.next()) {
        yield `${JSON.stringify(toLine(next.value))}\n`;
      }
    } finally {
      await iterator.return?.();
    }
  }
  try {
    await pipeline(Readable.from(lines()), res);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  }
}
