/**
 * "This person's tasks changed", for whoever shows them live (MCP clients subscribed to the
 * task resources). Delivered within this process only: a change written by another replica
 * is not seen here (docs/mcp.md).
 */
export abstract class TaskChanges {
  abstract publish(userId: string): void;
  /** @returns a function that ends the subscription. */
  abstract subscribe(userId: string, listener: () => void): () => void;
}
