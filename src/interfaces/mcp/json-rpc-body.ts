import type { Response } from 'express';

/**
 * A JSON array: a JSON-RPC batch. Protocol 2025-06-18 removed batches from MCP; Bridle
 * refuses them whatever version a client negotiated, so that one POST carries one message:
 * the SDK's transport would run up to 100 calls of one batch for one request.
 */
export function isBatch(body: unknown): body is unknown[] {
  return Array.isArray(body);
}

/** JSON-RPC's Invalid Request, with the id unknown: the answer to a batch, an empty one included. */
export function refuseBatch(res: Response): void {
  res.status(400).json({
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported: send one message per request' },
    id: null,
  });
}
