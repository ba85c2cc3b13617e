/**
 * When deferred maintenance writes (pruning the event tail) may take the database's writer: once
 * requests' writes pause for WRITER_PAUSE_MS, and then for at most MAINTENANCE_SHARE of the time
 * between them. Back to back, they took CPU from readers after a start, and the embedded
 * database runs one write at a time: a user's write that comes meanwhile waits for the whole
 * command.
 */
export class MaintenancePacer {
  static readonly WRITER_PAUSE_MS = 100;
  static readonly MAINTENANCE_SHARE = 0.2;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private pacedUntil = Number.NEGATIVE_INFINITY;

  /** A request's write is being sent. */
  noteWrite(): void {
    this.lastWriteAt = performance.now();
  }

  private untilTurn(): number {
    const writersPause = MaintenancePacer.WRITER_PAUSE_MS - (performance.now() - this.lastWriteAt);
    return Math.max(writersPause, this.pacedUntil - performance.now());
  }

  /**
   * Resolves when a maintenance write may start (or as soon as `hurry()` says so), with the
   * function to call once that write has ended.
   */
  async turn(hurry: () => boolean): Promise<() => void> {
    for (let wait = this.untilTurn(); wait > 0 && !hurry(); wait = this.untilTurn()) {
      // Looked at again at least every WRITER_PAUSE_MS, and shortly while another maintenance
      // write is under way (its end sets the wait).
      const ms = Number.isFinite(wait) ? Math.min(wait, MaintenancePacer.WRITER_PAUSE_MS) : MaintenancePacer.WRITER_PAUSE_MS / 10;
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    const started = performance.now();
    this.pacedUntil = Number.POSITIVE_INFINITY; // no other maintenance write beside this one
    return () => {
      const ended = performance.now();
      const share = MaintenancePacer.MAINTENANCE_SHARE;
      this.pacedUntil = ended + ((ended - started) * (1 - share)) / share;
    };
  }
}
