/**
 * Preloaded into the measured service by bench/embedded-memory.ts (`node --require <this> dist/main.js`):
 * it remembers every WebAssembly.Memory made in the process (PGlite's heap, and initdb's on a
 * fresh folder) and, asked over the IPC channel, answers with their sizes and the V8 figures.
 * It changes nothing else: the memories are the originals' subclass, held weakly.
 */
import { getHeapStatistics } from 'node:v8';

export interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Bytes of each WebAssembly memory still alive (buffer.byteLength: what the module grew to, touched or not). */
  readonly wasmMemories: number[];
  readonly mallocedMemory: number;
}

// The project compiles without the DOM's types, which declare WebAssembly: the little used here.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
type WasmMemoryConstructor = new (descriptor: { initial: number; maximum?: number }) => WasmMemory;
const wasm = (globalThis as unknown as { WebAssembly: { Memory: WasmMemoryConstructor } }).WebAssembly;

const memories: WeakRef<WasmMemory>[] = [];
class TrackedMemory extends wasm.Memory {
  constructor(descriptor: { initial: number; maximum?: number }) {
    super(descriptor);
    memories.push(new WeakRef(this));
  }
}
wasm.Memory = TrackedMemory;

function sample(): MemorySample {
  const usage = process.memoryUsage();
  const wasmMemories: number[] = [];
  for (const ref of memories) {
    const memory = ref.deref();
    if (memory) wasmMemories.push(memory.buffer.byteLength);
  }
  return {
    rss: usage.rss,
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    wasmMemories,
    mallocedMemory: getHeapStatistics().malloced_memory,
  };
}

const collect = (globalThis as { gc?: () => void }).gc;

if (process.send) {
  process.on('message', (message: unknown) => {
    // 'retained': after a full garbage collection (the service runs with --expose-gc), what is still referenced.
    if (message === 'retained') collect?.();
    if (message === 'sample' || message === 'retained') process.send?.({ sample: sample() });
  });
  // The channel must not keep the service alive once it wants to exit.
  process.channel?.unref();
}
