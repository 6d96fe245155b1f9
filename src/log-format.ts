import { pino, type DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from './config.js';

/**
 * Where a process's log lines go: JSON lines on stdout (for machines: the default, and always in
 * production unless LOG_FORMAT=pretty), or, in development at a terminal, one readable line each
 * (pino-pretty, in this thread, so that a line is written before the process exits).
 *
 * JSON lines are written asynchronously: a synchronous write per request line cost a third of the
 * server's throughput (docs/performance.md). Lines written while a write is in flight are gathered
 * into the next one, so nothing waits at idle, and pino writes what is left synchronously when the
 * process exits. One destination per process, shared by every logger, so that two writers never
 * interleave inside a line.
 *
 *   [12:04:05.120] INFO: GET /api/external/patient/:patientId 200 in 3.4 ms (req 0b6c…)
 */
export function logDestination(config: Pick<Config, 'env' | 'logFormat'>, terminal = process.stdout.isTTY): DestinationStream {
  const format = config.logFormat === 'auto' ? (config.env === 'development' && terminal ? 'pretty' : 'json') : config.logFormat;
  if (format === 'json') return (jsonLines ??= pino.destination({ dest: 1, sync: false }));
  return pretty({
    colorize: terminal,
    // Written at once: the last lines before a process.exit are not lost.
    sync: true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The request line's fields are in its message; the request id ends every line.
    ignore: 'pid,hostname,reqId,req,statusCode,durationMs',
    messageFormat: (log, messageKey) => {
      const message = typeof log[messageKey] === 'string' ? log[messageKey] : '';
      const req = log.req as { method?: string; route?: string } | undefined;
      const text =
        message === REQUEST_COMPLETED && req
          ? `${req.method ?? ''} ${req.route ?? ''} ${String(log.statusCode)} in ${String(log.durationMs)} ms`
          : message;
      return typeof log.reqId === 'string' ? `${text} (req ${log.reqId})` : text;
    },
  });
}

let jsonLines: DestinationStream | undefined;

/** The message of the one line logged per answered request (http/request-log.ts). */
export const REQUEST_COMPLETED = 'request completed';
