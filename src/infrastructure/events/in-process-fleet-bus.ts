import { EventEmitter } from 'node:events';
import { checkedPayload, FleetBus, type FleetChannel } from '../../application/shared/ports/fleet-bus.port';

/**
 * The bus of a deployment that is one process (the embedded database): a message reaches
 * this process's subscribers, on a later turn of the event loop as it would from the network.
 */
export class InProcessFleetBus extends FleetBus {
  private readonly events = new EventEmitter().setMaxListeners(0);

  publish(channel: FleetChannel, payload: string): Promise<void> {
    checkedPayload(channel, payload);
    setImmediate(() => this.events.emit(channel, payload));
    return Promise.resolve();
  }

  subscribe(channel: FleetChannel, listener: (payload: string) => void): () => void {
    this.events.on(channel, listener);
    return () => this.events.off(channel, listener);
  }

  /** One process never loses messages to itself: nothing to re-read. */
  onResync(): () => void {
    return () => undefined;
  }
}
