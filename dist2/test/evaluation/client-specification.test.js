/**
 * The whole client specification suite (docs/rules.md §3.15), every case, no expected failures: `tests`
 * through the SDK decision path and the playground path, `variantTests` through getVariant and
 * the playground's flag variant. The delta-API files (19, 20) do hold evaluation tests; their event
 * streams are replayed through `compile` and `overlay`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import t from 'tap';
import { compile, evaluate, getVariant, isEnabled, overlay, } from '../../src/evaluation/index.js';
import { SPEC_ENV, specFeatureToFlag, specSegmentToSegment, specStateToSnapshot } from './fixtures/builders.js';
const require = createRequire(import.meta.url);
const specDir = dirname(require.resolve('@unleash/client-specification/specifications/index.json'));
const readSpec = (file) => JSON.parse(readFileSync(join(specDir, file), 'utf8'));
/** The harness context: an appName, then the spec context (which may override it). */
const contextOf = (test) => ({ appName: 'client-specification', ...test.context });
/** Strategies whose outcome is a coin toss for some contexts; the suite only uses 0 % and 100 %. */
const SPEC_FILES = readSpec('index.json');
t.test('the suite lists 22 files and every one holds evaluation cases', async (t) => {
    t.equal(SPEC_FILES.length, 22);
    for (const file of SPEC_FILES) {
        const spec = readSpec(file);
        t.ok((spec.tests?.length ?? 0) + (spec.variantTests?.length ?? 0) > 0, `${file} has cases`);
    }
});
/** Delta API files: a hydration event is a snapshot, later events overlay it. */
function compileDeltaEvents(events) {
    let compiled = compile({ flags: [], segments: [] });
    for (const event of events) {
        switch (event.type) {
            case 'hydration':
                compiled = compile(specStateToSnapshot(event));
                break;
            case 'feature-updated':
                compiled = overlay(compiled, { flags: [specFeatureToFlag(event.feature)] });
                break;
            case 'feature-removed':
                compiled = overlay(compiled, { removedFlags: [event.featureName] });
                break;
            case 'segment-updated':
                compiled = overlay(compiled, { segments: [specSegmentToSegment(event.segment)] });
                break;
            case 'segment-removed':
                compiled = overlay(compiled, { removedSegments: [event.segmentId] });
                break;
            default:
                throw new Error(`unknown delta event ${event.type}`);
        }
    }
    return compiled;
}
function playgroundResult(compiled, name, context) {
    return evaluate(compiled, SPEC_ENV, context).find((result) => result.name === name);
}
let cases = 0;
for (const file of SPEC_FILES) {
    const spec = readSpec(file);
    const compiled = spec.state.events ? compileDeltaEvents(spec.state.events) : compile(specStateToSnapshot(spec.state));
    t.test(file, async (t) => {
        for (const test of spec.tests ?? []) {
            cases += 1;
            const context = contextOf(test);
            t.equal(isEnabled(compiled, SPEC_ENV, test.toggleName, context), test.expectedResult, `SDK: ${test.description}`);
            const result = playgroundResult(compiled, test.toggleName, context);
            t.equal(result?.isEnabled ?? false, test.expectedResult, `playground: ${test.description}`);
        }
        for (const test of spec.variantTests ?? []) {
            cases += 1;
            const context = contextOf(test);
            t.strictSame(getVariant(compiled, SPEC_ENV, test.toggleName, context), test.expectedResult, `SDK: ${test.description}`);
            const result = playgroundResult(compiled, test.toggleName, context);
            const expected = test.expectedResult;
            const variant = result?.variant ?? { name: 'disabled', enabled: false };
            t.equal(variant.name, expected.name, `playground variant name: ${test.description}`);
            t.equal(variant.enabled, expected.enabled, `playground variant enabled: ${test.description}`);
            t.same(variant.payload, expected.payload, `playground variant payload: ${test.description}`);
        }
    });
}
t.teardown(() => {
    // 275 cases per docs/rules.md §3.15 plus the 4 delta-API cases.
    if (cases !== 279)
        throw new Error(`expected 279 specification cases, ran ${cases}`);
});
//# sourceMappingURL=client-specification.test.js.map