import { Metrics } from '../../src/application/shared/ports/metrics.port';

/** Keeps every measurement, so that a test can say what was counted. */
export class RecordingMetrics extends Metrics {
  readonly calls: { readonly name: string; readonly args: readonly unknown[] }[] = [];

  chatTurn(...args: unknown[]): void {
    this.calls.push({ name: 'chatTurn', args });
  }

  outreachCycle(...args: unknown[]): void {
    this.calls.push({ name: 'outreachCycle', args });
  }

  toolCall(...args: unknown[]): void {
    this.calls.push({ name: 'toolCall', args });
  }

  modelCall(...args: unknown[]): void {
    this.calls.push({ name: 'modelCall', args });
  }

  quotaRejection(...args: unknown[]): void {
    this.calls.push({ name: 'quotaRejection', args });
  }

  auditRowAppended(...args: unknown[]): void {
    this.calls.push({ name: 'auditRowAppended', args });
  }

  outboundFetch(...args: unknown[]): void {
    this.calls.push({ name: 'outboundFetch', args });
  }

  httpRequest(...args: unknown[]): void {
    this.calls.push({ name: 'httpRequest', args });
  }

  render(): Promise<string> {
    return Promise.resolve('');
  }
}
