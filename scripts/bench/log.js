// Progress lines on standard error (standard output carries the report), with the seconds since start.
import process from 'node:process';

const started = Date.now();

export const log = (text) => process.stderr.write(`bench [${((Date.now() - started) / 1000).toFixed(1)} s]: ${text}\n`);
