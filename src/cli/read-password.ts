import type { ReadStream } from 'node:tty';

/** Where the command line writes: the process's stdout or stderr, or a test's capture. */
export interface Output {
  write(text: string): unknown;
}

/**
 * The password of `create-staff`: read from standard input (`--password-stdin`: everything up to
 * the end, without its final line break), or typed at a terminal without echo, twice.
 */
export async function readPasswordFromStdin(stdin: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Prompts on standard error and reads a line at the terminal without echoing it. */
function promptHidden(stdin: ReadStream, stderr: Output, prompt: string): Promise<string> {
  stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (finish: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      finish();
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          done(() => resolve(typed));
          return;
        }
        if (char === '\u0003') {
          done(() => reject(new Error('cancelled')));
          return;
        }
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    stdin.on('data', onData);
  });
}

/** Asks twice at a terminal; refuses when the two differ. */
export async function promptNewPassword(stdin: ReadStream, stderr: Output): Promise<string> {
  const first = await promptHidden(stdin, stderr, 'Password (at least 12 characters): ');
  const second = await promptHidden(stdin, stderr, 'Same password again: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}
