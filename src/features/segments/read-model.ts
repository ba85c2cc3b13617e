/**
 * What other features may read of segments (the segments store is the write model and stays
 * inside this folder): the segment's shape, its form for the evaluation engine, and the lookups
 * the SDK state, the playground and change requests ask.
 */
import type { ConstraintConfig, SegmentConfig } from '../../evaluation/types.js';

export interface Segment {
  id: number;
  name: string;
  description: string | null;
  project: string | null;
  constraints: ConstraintConfig[];
  createdBy: string;
  createdAt: Date;
}

/** What the playground snapshot needs of a segment (src/evaluation/types.ts). */
export function toSegmentConfig(segment: Pick<Segment, 'id' | 'name' | 'constraints'>): SegmentConfig {
  return { id: segment.id, name: segment.name, constraints: segment.constraints };
}

/** Segments as they are now (from the configuration state); the segments store answers. */
export interface SegmentReadModel {
  get(id: number): Promise<Segment | null>;
  /** Ordered by name, as Unleash lists them. */
  list(): Promise<Segment[]>;
}
