/** One JSON log line as pino writes it. */
export interface LogLine {
  level: number;
  msg: string;
  reqId?: string;
  err?: Record<string, unknown>;
  [key: string]: unknown;
}

/** pino's number for `error`. */
const ERROR = 50;

/** Every log line an app writes (TestApp's `logStream`), as pino's raw JSON text. */
export class CapturedLogs {
  readonly raw: string[] = [];
  readonly stream = { write: (line: string) => void this.raw.push(line) };

  get text(): string {
    return this.raw.join('');
  }

  /** Every line, parsed. */
  all(): LogLine[] {
    return this.raw.map((line) => JSON.parse(line) as LogLine);
  }

  /** The lines of one request. */
  lines(reqId: string): LogLine[] {
    return this.all().filter((line) => line.reqId === reqId);
  }

  /** The lines of one request at `error` or above. */
  errors(reqId: string): LogLine[] {
    return this.lines(reqId).filter((line) => line.level >= ERROR);
  }
}
