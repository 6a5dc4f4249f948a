/**
 * Log lines as pino writes them: to process.stdout (Jest wraps it, so pino writes through
 * it rather than straight to file descriptor 1). Start before the app, restore after.
 */
export function captureStdout(): { text: () => string; restore: () => void } {
  let captured = '';
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    captured += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  });
  return { text: () => captured, restore: () => write.mockRestore() };
}
