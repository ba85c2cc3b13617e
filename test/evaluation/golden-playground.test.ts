/**
 * Golden tests against responses recorded from a real Unleash 8.2 playground (samples 42, 43,
 * 45, 46, 47, copied to test/fixtures/playground). Per flag, both the result objects and the fast
 * JSON must equal what Unleash returned — the JSON byte for byte, which also pins key order. None
 * of these samples touches a D2 difference (no userWithId, missing segment, IN_CIDR, `v` semver)
 * and every context carries a userId, so nothing here depends on random stickiness.
 */
import t from 'tap';
import {
  advancedEntryJson,
  advancedEntryObject,
  cleanContext,
  compile,
  evaluate,
  evaluateSelection,
  playgroundFlagJson,
  selectFlags,
} from '../../src/evaluation/index.js';
import { expandCombinations } from './combinations.js';
import { PEER_SNAPSHOT } from './fixtures/peer-config.js';
import { fixture } from '../helpers/samples.js';

const sample = (file: string) => fixture(`playground/${file}`);

const compiled = compile(PEER_SNAPSHOT);
const projectsOf = (projects: unknown): string[] | undefined => (Array.isArray(projects) ? projects : undefined);

for (const file of ['42-playground-projects-star.json', '43-playground-projects-default.json']) {
  t.test(`deprecated playground: ${file}`, async (t) => {
    const { input, features } = sample(file).response.body;
    const projects = projectsOf(input.projects);
    const results = evaluate(compiled, input.environment, input.context, projects);
    t.strictSame(
      results.map((result) => result.name),
      features.map((feature: any) => feature.name),
      'flag order: numeric names first, then newest first',
    );
    const evaluations = evaluateSelection(compiled, selectFlags(compiled, projects), input.environment, input.context);
    for (const recorded of features) {
      const index = results.findIndex((result) => result.name === recorded.name);
      t.strictSame(results[index], recorded, `${recorded.name}: result object`);
      t.equal(playgroundFlagJson(evaluations[index]!), JSON.stringify(recorded), `${recorded.name}: JSON bytes`);
    }
  });
}

for (const file of [
  '45-playground-advanced.json',
  '46-playground-advanced-userid-number.json',
  '47-playground-advanced-custom-field-object.json',
]) {
  t.test(`advanced playground: ${file}`, async (t) => {
    const { features, input, warnings } = sample(file).response.body;
    const { context, removedProperties } = cleanContext(input.context);
    t.strictSame(removedProperties, warnings?.invalidContextProperties ?? [], 'removed context properties');
    const combinations = expandCombinations(context);
    const selection = selectFlags(compiled, projectsOf(input.projects));
    t.strictSame(
      selection.flags.map((flag) => flag.name),
      features.map((feature: any) => feature.name),
      'flag order',
    );
    for (const environment of input.environments) {
      const runs = combinations.map((combination) => ({
        combination,
        contextJson: JSON.stringify(combination),
        evaluations: evaluateSelection(compiled, selection, environment, combination),
      }));
      for (const recorded of features) {
        const entries = recorded.environments[environment];
        t.equal(entries.length, combinations.length, `${recorded.name}/${environment}: one entry per combination`);
        entries.forEach((entry: any, i: number) => {
          const { combination, contextJson, evaluations } = runs[i]!;
          const evaluation = evaluations.find((candidate) => candidate.flag.name === recorded.name)!;
          const label = `${recorded.name}/${environment}/${contextJson}`;
          t.strictSame(advancedEntryObject(evaluation, combination), entry, `${label}: entry object`);
          t.equal(advancedEntryJson(evaluation, contextJson), JSON.stringify(entry), `${label}: JSON bytes`);
        });
      }
    }
  });
}
