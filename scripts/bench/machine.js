// What the figures were measured on: the machine, Node, and the commit (with "-dirty" when the
// working tree had changes), stated in both outputs so that tables from two runs can be compared.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import process from 'node:process';
import { pinning } from './processes.js';

function git(args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function describeMachine() {
  const commit = git(['rev-parse', 'HEAD']);
  const dirty = commit !== null && git(['status', '--porcelain', '--untracked-files=no']) !== '';
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    totalMemoryMb: Math.round(os.totalmem() / 1024 / 1024),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    pinned: pinning,
    commit: commit === null ? 'unknown' : `${commit}${dirty ? '-dirty' : ''}`,
  };
}
