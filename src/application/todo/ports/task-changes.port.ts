/**
 * "This person's tasks changed", for whoever shows them live (MCP clients subscribed to the
 * task resources, open consoles), whichever replica wrote the change.
 */
export abstract class TaskChanges {
  abstract publish(userId: string): void;
  /** @returns a function that ends the subscription. */
  abstract subscribe(userId: string, listener: () => void): () => void;
}
