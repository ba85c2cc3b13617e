/**
 * The kernel's DAMON threads (`kdamond.N`) and the CPU they take, read from /proc/<pid>/schedstat
 * (its first field: ns on a CPU so far).
 *
 * Why a bench cares: this machine's kernel runs DAMON over physical memory with a `pageout`
 * scheme (/sys/kernel/mm/damon/admin/kdamonds/0: `paddr`, sampling every 500 ms). Each sample is a
 * burst of kernel work whose length follows the memory the busy processes have mapped: 1.5–4 ms
 * on an idle machine, 3–7 ms beside Vane at 5 000 flags just started (257 MB RSS), 9–57 ms once
 * the scale bench's throughput runs have grown it to 1.1–1.3 GB (`perf record -a` at
 * 1 999 Hz). A write in flight during a burst took about the burst's length: of the 27 writes over
 * 25 ms among 600 at 5 000 flags, 18 overlapped one of the 17 bursts, and every burst of 26 ms or
 * more held up a write by 39–65 ms. Two such writes among 200 set a kind's p99. Counting them
 * beside each figure tells a run's noise from a cost of Vane's.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Where a kdamond's CPU time is read; empty where there is none (or no /proc). */
function kdamondStats(): string[] {
  try {
    return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('kdamond') ? [`/proc/${pid}/schedstat`] : [];
      } catch {
        return []; // gone meanwhile
      }
    });
  } catch {
    return [];
  }
}

/** A write counts as overlapped by a burst when kdamond ran at least this long while it was in flight. */
const OVERLAP_NS = 1_000_000;

export class KdamondClock {
  private readonly stats = kdamondStats();

  /** Whether this machine runs DAMON at all (nothing to count otherwise). */
  get present(): boolean {
    return this.stats.length > 0;
  }

  /** ns that every kdamond has spent on a CPU so far. */
  cpuNs(): number {
    let sum = 0;
    for (const file of this.stats) {
      try {
        sum += Number(readFileSync(file, 'utf8').split(' ')[0]);
      } catch {
        // a kdamond stopped: its time no longer grows
      }
    }
    return sum;
  }

  /** Runs `fn` and says whether a kdamond burst overlapped it. */
  async overlapped<T>(fn: () => Promise<T>): Promise<{ value: T; overlapped: boolean }> {
    const before = this.cpuNs();
    const value = await fn();
    return { value, overlapped: this.present && this.cpuNs() - before >= OVERLAP_NS };
  }
}
