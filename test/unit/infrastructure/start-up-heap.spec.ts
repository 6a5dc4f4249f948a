import type * as StartUpHeap from '../../../src/infrastructure/start-up-heap';

/**
 * src/infrastructure/start-up-heap.ts holds `--optimize-for-size` off while the service starts
 * and gives it back once it listens. V8's flags cannot be read back from JavaScript, so the
 * test watches what the module asks V8 for.
 */
describe('start-up heap', () => {
  const execArgv = process.execArgv;
  const nodeOptions = process.env.NODE_OPTIONS;

  afterEach(() => {
    process.execArgv = execArgv;
    if (nodeOptions === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = nodeOptions;
    jest.resetModules();
  });

  function load(argv: string[], options?: string): { flags: string[]; optimizeForSizeOnceStarted: () => void } {
    process.execArgv = argv;
    if (options === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = options;
    const flags: string[] = [];
    let optimizeForSizeOnceStarted!: () => void;
    jest.isolateModules(() => {
      jest.doMock('node:v8', () => ({ setFlagsFromString: (flag: string) => flags.push(flag) }));
      ({ optimizeForSizeOnceStarted } = jest.requireActual<typeof StartUpHeap>('../../../src/infrastructure/start-up-heap'));
    });
    return { flags, optimizeForSizeOnceStarted };
  }

  it('turns --optimize-for-size off while loading and back on once started, as npm start runs the service', () => {
    const heap = load(['--v8-pool-size=1', '--optimize-for-size']);
    expect(heap.flags).toEqual(['--no-optimize-for-size']);
    heap.optimizeForSizeOnceStarted();
    expect(heap.flags).toEqual(['--no-optimize-for-size', '--optimize-for-size']);
  });

  it('reads the flag from NODE_OPTIONS too', () => {
    const heap = load([], '--max-old-space-size=512 --optimize-for-size');
    heap.optimizeForSizeOnceStarted();
    expect(heap.flags).toEqual(['--no-optimize-for-size', '--optimize-for-size']);
  });

  it('leaves V8 alone when the process was not started with the flag', () => {
    const heap = load(['--v8-pool-size=1'], '--enable-source-maps');
    heap.optimizeForSizeOnceStarted();
    expect(heap.flags).toEqual([]);
  });
});
