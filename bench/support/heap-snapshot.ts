import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './processes';

interface HeapSnapshot {
  readonly snapshot: { readonly meta: { readonly node_fields: readonly string[] } };
  readonly nodes: readonly number[];
}

/**
 * The live heap a V8 heap snapshot holds: the sum of every object's own size. A snapshot is
 * taken after a full garbage collection, so this is what the process retains, unlike its RSS,
 * which also counts heap pages V8 keeps for later and the allocator's free lists.
 */
export function liveHeapBytes(file: string): number {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
  const fields = snapshot.snapshot.meta.node_fields;
  const selfSize = fields.indexOf('self_size');
  let total = 0;
  for (let i = selfSize; i < snapshot.nodes.length; i += fields.length) total += snapshot.nodes[i];
  return total;
}

/**
 * Waits until `dir` holds `count` .heapsnapshot files and each parses (V8 writes a snapshot
 * in pieces, with pauses: a file can stop growing for a while before it is whole); returns
 * the live heap of each, in the order taken.
 */
export async function liveHeapsOfSnapshots(dir: string, count: number, timeoutMs = 180_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = readdirSync(dir)
      .filter((name) => name.endsWith('.heapsnapshot'))
      .sort();
    if (files.length >= count) {
      try {
        return files.map((name) => liveHeapBytes(join(dir, name)));
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
      }
    }
    if (Date.now() > deadline) throw new Error(`${files.length} of ${count} heap snapshots written whole in ${dir}`);
    await sleep(2_000);
  }
}
