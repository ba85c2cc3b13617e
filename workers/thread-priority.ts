/**
 * Lowers this pool thread's CPU priority to PLAYGROUND_WORKER_NICE (handed over as the pool's
 * `workerData`), once per thread: every entry point imports it. Evaluation is the work that can
 * wait; on a machine short of cores the main thread (SDK reads, writes) then gets the CPU first
 * (docs/operations.md has what that did to the soak, and why it is off by default). Linux only:
 * there a thread's own id names it alone to setpriority (read from /proc/thread-self,
 * "<pid>/task/<tid>"). Elsewhere, or refused, the thread keeps the process's priority.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import { workerData } from 'piscina';

export interface PoolWorkerData {
  nice: number;
}

function lowerThisThread(nice: number): void {
  if (isMainThread || !(nice > 0)) return;
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // not Linux, or not permitted: the thread keeps the process's priority
  }
}

lowerThisThread((workerData as Partial<PoolWorkerData> | undefined)?.nice ?? 0);
