import { Logger as NestLoggerService } from '@nestjs/common';
import { Logger, type LogLine } from '../../application/shared/ports/logger.port';

/**
 * The Logger port on Nest's logger, which the service points at pino (modules/logging.ts):
 * a line's fields become the JSON line's fields, its context the `context` field.
 */
export class NestLogger extends Logger {
  private readonly nest: NestLoggerService;

  constructor(context = 'Bridle') {
    super();
    this.nest = new NestLoggerService(context);
  }

  info(line: LogLine): void {
    this.nest.log(line);
  }

  warn(line: LogLine): void {
    this.nest.warn(line);
  }

  error(line: LogLine): void {
    this.nest.error(line);
  }

  withContext(context: string): Logger {
    return new NestLogger(context);
  }
}
