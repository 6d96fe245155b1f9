/**
 * The password of `create-staff`: read from standard input (`--password-stdin`: everything up to
 * the end, without its final line break), or typed at a terminal without echo, twice.
 */
export async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Prompts on standard error and reads a line at the terminal without echoing it. */
function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (finish: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
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
export async function promptNewPassword(): Promise<string> {
  const first = await promptHidden('Password (at least 12 characters): ');
  const second = await promptHidden('Same password again: ');
  if (first !== second) throw new Error('the two passwords differ');
  return first;
}
