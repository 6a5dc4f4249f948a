import { LanguageModelTimeoutError, LanguageModelUnavailableError } from '../../../src/domain/agent/language-model-errors';
import { type Classified, withStreamRetries } from '../../../src/infrastructure/llm/retry';

const policy = { timeoutMs: 200, maxRetries: 2, retryMaxWaitMs: 1_000 };

function classify(error: unknown, how: { timedOut: boolean }): Classified {
  return how.timedOut
    ? { error: new LanguageModelTimeoutError('late', { cause: error }), retryable: false }
    : { error: new LanguageModelUnavailableError('down', { cause: error }), retryable: true };
}

describe(withStreamRetries.name, () => {
  it('retries a failure before the first piece that is not just spaces, and never passes on an empty piece', async () => {
    const pieces: string[] = [];
    let attempts = 0;
    const result = await withStreamRetries(
      policy,
      new AbortController().signal,
      (_signal, emit) => {
        attempts++;
        emit('');
        emit('\n');
        if (attempts === 1) return Promise.reject(new Error('reset'));
        emit('Hel');
        emit('lo');
        return Promise.resolve('done');
      },
      classify,
      (text) => pieces.push(text),
    );
    expect(result).toBe('done');
    expect(attempts).toBe(2);
    expect(pieces).toEqual(['\n', '\n', 'Hel', 'lo']);
  });

  it('makes a failure after the first piece final, still classified', async () => {
    const pieces: string[] = [];
    let attempts = 0;
    const failure = await withStreamRetries(
      policy,
      new AbortController().signal,
      (_signal, emit) => {
        attempts++;
        emit('Hel');
        return Promise.reject(new Error('reset'));
      },
      classify,
      (text) => pieces.push(text),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LanguageModelUnavailableError);
    expect(attempts).toBe(1);
    expect(pieces).toEqual(['Hel']);
  });

  it('bounds the whole attempt, stream included, by the per-attempt timeout', async () => {
    const failure = withStreamRetries(
      policy,
      new AbortController().signal,
      (signal, emit) => {
        emit('Hel');
        return new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
      },
      classify,
      () => {},
    );
    await expect(failure).rejects.toThrow(LanguageModelTimeoutError);
  });
});
