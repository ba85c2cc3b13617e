import type { SegmentInfo } from './apply.js';

/** How flags look segments up (strategy validation); SegmentStore satisfies it. */
export interface SegmentSource {
  get(id: number): Promise<SegmentInfo | null>;
}
