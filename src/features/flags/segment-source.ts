import type { SegmentInfo } from './apply.js';

/** How flags look segments up (strategy validation); SegmentStore satisfies it. */
export interface SegmentSource {
  get(id: number): Promise<SegmentInfo | null>;
  /** Of `ids`, those missing or being deleted as the database has them now (not the state). */
  missingInDatabase(ids: number[]): Promise<number[]>;
}
