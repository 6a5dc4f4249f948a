/**
 * One structured log line: what happened (`msg`) and the ids to find it by (decisionId,
 * campaignId…), an error as `err`. Never a secret: the adapter redacts known secret keys,
 * but a line should not carry one in the first place.
 */
export interface LogLine {
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** Where application code writes its log lines; the service's logger is behind it. */
export abstract class Logger {
  abstract info(line: LogLine): void;
  abstract warn(line: LogLine): void;
  abstract error(line: LogLine): void;
  /** The same logger, its lines marked as written by `context` (a class name). */
  abstract withContext(context: string): Logger;
}
