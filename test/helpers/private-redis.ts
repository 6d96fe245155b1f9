import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/**
 * A redis-server of the test's own on a free port, to kill and restart (outage tests). The
 * machine's shared Redis is never stopped. Nothing is saved to disk.
 */
export interface PrivateRedis {
  readonly port: number;
  /** redis://127.0.0.1:<port>/<db> */
  url(db?: number): string;
  /** SIGKILL: the connections drop at once, as in a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: nothing was saved). */
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing answers (a hung server, a network black hole). */
  pause(): void;
  /** SIGCONT: answers again. */
  resume(): void;
}

const running = new Set<ChildProcess>();

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child = await launch(port);
  return {
    port,
    url: (db = 0) => `redis://127.0.0.1:${port}/${db}`,
    async kill() {
      await killChild(child);
    },
    async restart() {
      child = await launch(port);
    },
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
  };
}

/** Kills every private redis-server still running (afterAll). */
export async function killPrivateRedises(): Promise<void> {
  await Promise.all([...running].map(killChild));
}

/** A port nobody listens on now: the system picks it, then it is given back. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${String(code)}:\n${output}`)));
  });
  return child;
}

function killChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
