/**
 * The channels processes of one deployment tell each other on. `bridle_policy`: an admin
 * stored a new version of the policy (payload: its number), which every process then reads.
 */
export type FleetChannel = 'bridle_task_changes' | 'bridle_mcp_sessions' | 'bridle_policy';

/**
 * Short messages to every process of the deployment, this one included: what one replica
 * must tell the others while it happens (a task changed, an MCP client answered a question
 * another replica asked). Delivery is at most once and only to processes listening at that
 * moment; a subscriber that must not miss anything re-reads what it shows on `onResync`,
 * which fires after the bus lost its connection and got it back. Nothing a guarantee rests on
 * travels here: that is in the database.
 */
export abstract class FleetBus {
  /** The most a payload may hold, in bytes of UTF-8 (PostgreSQL's NOTIFY takes under 8000). */
  static readonly MAX_PAYLOAD_BYTES = 7_500;

  /**
   * Resolves once the message has been sent (soon after, not at once: a bus may send what is
   * published close together in one go).
   * @throws PayloadTooLargeError past MAX_PAYLOAD_BYTES.
   */
  abstract publish(channel: FleetChannel, payload: string): Promise<void>;

  /** @returns a function that ends the subscription. */
  abstract subscribe(channel: FleetChannel, listener: (payload: string) => void): () => void;

  /** @returns a function that ends the subscription. */
  abstract onResync(listener: () => void): () => void;
}

export class PayloadTooLargeError extends Error {
  constructor(channel: FleetChannel, bytes: number) {
    super(`A message of ${bytes} bytes for ${channel} is over ${FleetBus.MAX_PAYLOAD_BYTES}`);
  }
}

/** Checks a payload against the bus's size limit before it is sent; a payload is one line. */
export function checkedPayload(channel: FleetChannel, payload: string): string {
  const bytes = new TextEncoder().encode(payload).length;
  if (bytes > FleetBus.MAX_PAYLOAD_BYTES) throw new PayloadTooLargeError(channel, bytes);
  if (payload.includes('\n')) throw new Error(`A message for ${channel} must be one line`);
  return payload;
}
