/**
 * Tasks of workers/playground-batch.ts (kinds `batch` and `impact` of workers/protocol.ts). They
 * run in the playground's Piscina pool (same threads, another module), so they share its warm
 * threads and its queue.
 * The snapshot travels as the playground's SharedArrayBuffer reference; a task carries its
 * context source (a slice of an explicit list, or the spec a worker expands itself) and a range.
 */
import type { SnapshotChanges } from '../../evaluation/index.js';
import type { SnapshotRef } from '../playground/protocol.js';
import type { ContextSource } from './contexts.js';

/** The snapshot as the playground's tasks carry it (a full copy of a recent revision and the changes since). */
export type SharedSnapshot = SnapshotRef;

interface RangeTask {
  snapshot: SharedSnapshot;
  source: ContextSource;
  /** Index of the first context of a `list` source's slice. */
  offset: number;
  start: number;
  end: number;
}

/** Records of contexts [start, end) as UTF-8 bytes (transferred). */
export interface BatchTask extends RangeTask {
  kind: 'batch';
  /** Undefined = all projects. */
  projects?: string[];
  environments: string[];
  separator: '\n' | ',';
}

export interface ImpactTask extends RangeTask {
  kind: 'impact';
  changes?: SnapshotChanges;
  /** Identifies `changes`, so a worker overlays a change request once per revision. */
  changesKey?: string;
  project: string;
  environment: string;
  /** The affected flags, in answer order. */
  flags: string[];
  maxExamples: number;
  /** Also return each changed (context, flag) as an NDJSON line. */
  lines: boolean;
}
