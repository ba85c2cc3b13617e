/**
 * The command line of every program in bench/ and tools/: Node's `parseArgs` (strict), with the
 * program's usage behind `--help`.
 *
 * - `--help` or `-h` (before a `--`) prints the usage to stdout and exits 0;
 * - an unknown option, a missing value or an unexpected argument prints what is wrong and the usage
 *   to stderr and exits 2, the usual code for a usage error, instead of parseArgs' stack trace
 *   (`usageError` does the same for a value the program itself rejects).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What `commandLine` answers for `config`: parseArgs' own result type. */
export type CommandLine<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/** Whether `args` asks for the usage: `--help` or `-h` before the end of options (`--`). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** A parseArgs error (ERR_PARSE_ARGS_UNKNOWN_OPTION, …_INVALID_OPTION_VALUE, …_UNEXPECTED_POSITIONAL). */
function isUsageError(err: unknown): err is Error {
  return err instanceof Error && String((err as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');
}

/** A command line the program cannot run with: `message`, then the usage, on stderr; exit code 2. */
export function usageError(usage: string, message: string): never {
  process.stderr.write(`${message}\n\n${usage.trim()}\n`);
  process.exit(2);
}

/**
 * Parses the process's arguments (or `config.args`) with parseArgs, strictly. `usage` is printed
 * as given, trimmed: the command, its options with their defaults, and the environment it reads.
 */
export function commandLine<T extends ParseArgsConfig>(usage: string, config: T): CommandLine<T> {
  const args = config.args ?? process.argv.slice(2);
  if (asksForHelp(args)) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  try {
    return parseArgs({ ...config, args, strict: true }) as CommandLine<T>;
  } catch (err) {
    if (!isUsageError(err)) throw err;
    usageError(usage, err.message);
  }
}
