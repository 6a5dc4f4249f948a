import { Logger, type LogLine } from '../../src/application/shared/ports/logger.port';

/** Keeps every line, with its level and context, so that a test can say what was logged; prints nothing. */
export class RecordingLogger extends Logger {
  constructor(
    readonly lines: { level: 'info' | 'warn' | 'error'; context: string; line: LogLine }[] = [],
    private readonly context = '',
  ) {
    super();
  }

  info(line: LogLine): void {
    this.lines.push({ level: 'info', context: this.context, line });
  }

  warn(line: LogLine): void {
    this.lines.push({ level: 'warn', context: this.context, line });
  }

  error(line: LogLine): void {
    this.lines.push({ level: 'error', context: this.context, line });
  }

  withContext(context: string): Logger {
    return new RecordingLogger(this.lines, context);
  }
}
