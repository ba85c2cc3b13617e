/**
 * Where the contexts of a batch or impact request come from, produced one at a time by index so
 * a worker can make its own share of a large population (only the spec crosses the thread
 * boundary, never 100 000 context objects) and the main thread can count them first.
 */
import { combinationAt, combinationSpace } from '../../evaluation/index.js';
function isRange(value) {
    return !Array.isArray(value);
}
function axisLength(value) {
    return isRange(value) ? Math.max(0, value.to - value.from + 1) : value.length;
}
/** Number of contexts in a population: the product of its axes (0 when one is empty). */
export function populationCount(spec) {
    return Object.values(spec).reduce((product, axis) => product * axisLength(axis), 1);
}
/** The `index`-th context of a population: a mixed-radix decoding, last key fastest. */
export function populationAt(spec, index) {
    const keys = Object.keys(spec);
    const picks = new Array(keys.length);
    let rest = index;
    for (let k = keys.length - 1; k >= 0; k--) {
        const axis = spec[keys[k]];
        const length = axisLength(axis);
        const i = rest % length;
        rest = Math.floor(rest / length);
        picks[k] = isRange(axis) ? String(axis.from + i) : axis[i];
    }
    const context = {};
    let properties;
    keys.forEach((key, k) => {
        if (key.startsWith('properties.')) {
            properties ??= {};
            properties[key.slice('properties.'.length)] = picks[k];
        }
        else {
            context[key] = picks[k];
        }
    });
    if (properties)
        context.properties = properties;
    return context;
}
/** How many contexts a source yields. */
export function sourceCount(source) {
    switch (source.kind) {
        case 'list':
            return source.contexts.length;
        case 'combinations':
            return combinationSpace(source.context).count;
        case 'population':
            return populationCount(source.spec);
    }
}
/**
 * A reader of contexts [start, end) of a source. For a list, `start` is the index of its first
 * context (a task carries only its own slice of the list).
 */
export class ContextCursor {
    source;
    offset;
    space;
    constructor(source, offset = 0) {
        this.source = source;
        this.offset = offset;
        this.space = source.kind === 'combinations' ? combinationSpace(source.context) : undefined;
    }
    at(index) {
        switch (this.source.kind) {
            case 'list':
                return this.source.contexts[index - this.offset];
            case 'combinations':
                return combinationAt(this.space, index);
            case 'population':
                return populationAt(this.source.spec, index);
        }
    }
}
//# sourceMappingURL=contexts.js.map