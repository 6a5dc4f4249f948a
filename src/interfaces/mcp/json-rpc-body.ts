import type { Response } from 'express';
import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';

/**
 * A JSON array: a JSON-RPC batch. Protocol 2025-06-18 removed batches from MCP; Bridle
 * refuses them whatever version a client negotiated, so that one POST carries one message
 * and the per-user limit, counting POSTs, counts calls.
 */
export function isBatch(body: unknown): body is unknown[] {
  return Array.isArray(body);
}

/**
 * Whether a POST /mcp counts against the per-user limit: every body but one notification or
 * one response. Those ask for no work of their own (the transport answers 202, and a
 * notification runs no tool: only a request, with an id, reaches a handler) and belong to a
 * call already counted: `notifications/initialized` to its `initialize`, a cancellation to its
 * request, an elicitation answer to the `tools/call` that asked. Refusing them would break that
 * call. What is neither (a request, a batch, a body the transport refuses) counts as one.
 * The checks are the transport's own schemas, so what is free here is what the transport
 * takes for a notification or a response.
 */
export function countsAsCall(body: unknown): boolean {
  return !(isJSONRPCNotification(body) || isJSONRPCResultResponse(body) || isJSONRPCErrorResponse(body));
}

/** JSON-RPC's Invalid Request, with the id unknown: the answer to a batch, an empty one included. */
export function refuseBatch(res: Response): void {
  res.status(400).json({
    jsonrpc: '2.0',
    error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported: send one message per request' },
    id: null,
  });
}
