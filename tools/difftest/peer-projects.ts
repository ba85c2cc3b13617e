/**
 * Projects on the Unleash reference: creating one through the API is not in Unleash's open-source
 * edition, so the tools that load a configuration with projects into it insert the project's rows
 * into its PostgreSQL database directly.
 */
import { execFileSync } from 'node:child_process';

/** A `createProject` for applyConfiguration (config.ts) against the reference's database `database`. */
export function peerProjectCreator(database: string): (id: string, name: string) => Promise<number> {
  const port = execFileSync('sh', ['-c', 'pg_lsclusters -h | awk \'$2=="main"{print $3; exit}\'']).toString().trim();
  return async (id, name) => {
    const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
    const sql =
      `INSERT INTO projects(id, name) VALUES (${quote(id)}, ${quote(name)});` +
      `INSERT INTO project_environments(project_id, environment_name) VALUES (${quote(id)}, 'development'), (${quote(id)}, 'production');` +
      `INSERT INTO project_settings(project) VALUES (${quote(id)});`;
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', 'psql', '-p', port, '-d', database, '-v', 'ON_ERROR_STOP=1', '-qtA', '-c', sql], { stdio: 'pipe' });
      return 201;
    } catch {
      return 409;
    }
  };
}
