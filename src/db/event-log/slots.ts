import type { PendingEvent } from '../outbox/events.js';
import { tailKey, type TailEntry } from './append.js';
import {
  BLOCK_SIZE, blockOf, decodeBlockIndex, firstIdOf, sealedBodiesOf, type BlockDocument, type BlockEntry, type EventBodies,
} from './blocks.js';
import type { EventLogIndex, IndexedEvent } from './search-index.js';
import { storedEventJson } from './stored.js';

/** The fields of a stored event's JSON the index keeps. */
interface StoredFields {
  type: string; createdAt: string; project?: string | null; featureName?: string | null; environment?: string | null;
  createdByUserId?: number | null; groupId?: string | null;
}

function indexedEvent(id: number, e: StoredFields): IndexedEvent {
  return {
    id, at: Date.parse(e.createdAt), type: e.type, project: e.project ?? null, featureName: e.featureName ?? null,
    environment: e.environment ?? null, createdByUserId: e.createdByUserId ?? null, groupId: e.groupId ?? null,
  };
}

/**
 * Which ids of the log the copy knows, block by block: the events of blocks not sealed yet, slot
 * by slot, each into the search index and the bodies as it comes; the sealed blocks; and the ids
 * known from their commit but not yet seen stored (`unconfirmed`), whose blocks wait to be sealed.
 */
export class LogSlots {
  /** Slots of blocks not sealed yet: the event, or null for a void slot. */
  private readonly pending = new Map<number, Map<number, BlockEntry | null>>();
  private readonly sealed = new Set<number>();
  private readonly unconfirmed = new Set<number>();
  private through = -1;

  constructor(private readonly index: EventLogIndex, private readonly bodies: EventBodies) {}

  /** The newest block of the run of sealed blocks from block 0 (-1: none). */
  get sealedThrough(): number {
    return this.through;
  }

  isSealed(block: number): boolean {
    return this.sealed.has(block);
  }

  /** Whether the event with this id is known to be stored (in the tail or a sealed block). */
  holds(id: number): boolean {
    return this.index.has(id) && !this.unconfirmed.has(id);
  }

  /**
   * Takes one event: into the index and the bodies, its slot towards sealing; `stored` when read
   * from the log or appended (else it is unconfirmed). `event` when the caller has the indexed
   * fields at hand (else they are parsed from the JSON).
   */
  accept(entry: TailEntry, stored = true, event?: IndexedEvent): void {
    const block = blockOf(entry.id);
    if (this.sealed.has(block)) return;
    if (stored) this.unconfirmed.delete(entry.id);
    let slots = this.pending.get(block);
    if (!slots) {
      slots = new Map();
      this.pending.set(block, slots);
    }
    const slot = entry.id - firstIdOf(block);
    if (slots.has(slot)) return;
    const indexed = event ?? indexedEvent(entry.id, JSON.parse(entry.body) as StoredFields);
    slots.set(slot, { event: indexed, json: entry.body });
    this.index.add(indexed);
    this.bodies.addLoose(entry.id, entry.body);
  }

  /** An event as its commit holds it, not yet seen stored. */
  acceptCommitted(id: number, event: PendingEvent): void {
    if (this.index.has(id)) return;
    this.unconfirmed.add(id);
    this.accept({ _id: tailKey(id), id, key: event.key, body: storedEventJson(id, event) }, false, {
      id, at: event.createdAt.getTime(), type: event.type, project: event.project, featureName: event.featureName,
      environment: event.environment, createdByUserId: event.createdByUserId, groupId: event.groupId ?? null,
    });
  }

  /** A sealed block read from the log: its events into the index and its JSON into the bodies. */
  loadBlock(doc: BlockDocument): void {
    if (this.sealed.has(doc.block)) return;
    for (const event of decodeBlockIndex(doc)) this.index.add(event);
    this.bodies.seal(doc.block, sealedBodiesOf(doc));
    this.markSealed(doc.block);
  }

  markSealed(block: number): void {
    for (let id = firstIdOf(block); id < firstIdOf(block + 1); id++) this.unconfirmed.delete(id);
    this.sealed.add(block);
    this.pending.delete(block);
    while (this.sealed.has(this.through + 1)) this.through++;
  }

  /**
   * The blocks whose every slot is known and stored, oldest first, with their slots in order. A
   * block with events not yet seen stored waits: sealing it would store them before their append.
   */
  sealable(): Array<{ block: number; entries: Array<BlockEntry | null> }> {
    const waiting = new Set([...this.unconfirmed].map(blockOf));
    return [...this.pending.entries()]
      .filter(([block, slots]) => slots.size === BLOCK_SIZE && !waiting.has(block))
      .sort(([a], [b]) => a - b)
      .map(([block, slots]) => ({ block, entries: Array.from({ length: BLOCK_SIZE }, (_, slot) => slots.get(slot) ?? null) }));
  }
}
