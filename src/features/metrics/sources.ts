import type { FlagData } from '../flags/read-model.js';
import type { StrategyTypeView } from '../strategy-types/schemas.js';

/** What the applications' views ask other features (composition.ts gives the flag store and the strategy types). */
export interface ApplicationSources {
  /** Every flag, archived ones included (an application's seen flags and a project's applications). */
  flags(): Promise<readonly FlagData[]>;
  /** Every strategy type, as `GET /api/admin/strategies` lists them. */
  strategies(): Promise<readonly StrategyTypeView[]>;
}
