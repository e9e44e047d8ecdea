import { Command, Option } from '@commander-js/extra-typings';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { checkCommandPath } from './command-path.js';
import { connectionPools } from '../client/pools.js';
import { createDeps } from './deps-factory.js';
import { completeWith } from './completion/hints.js';
import type { Deps, GlobalOptions } from './deps.js';
import { EXIT, UsageError } from '../console/errors.js';
import type { ExitCode } from '../console/errors.js';
import { createProcessIO } from '../console/io.js';
import { endOnSignals, endQuietlyOnClosedOutput } from '../console/process-exit.js';
import type { IO } from '../console/io.js';
import { milliseconds } from './generic/flags.js';
import { withMeta } from './generic/meta.js';
import { applyEnvFallbacks, envFallback } from './generic/env-fallback.js';
import { readStdinFlags } from './generic/stdin-flags.js';
import { formatItem } from './help-layout.js';
import { topicsSummary } from './help-topics.js';
import { clientVersion } from './package-version.js';
import { describeFailure, formatFailure } from './output/failure.js';
import { checkArgumentsUtf8 } from '../console/utf8.js';
import { OUTPUT_FORMATS } from './output/formats.js';
import { assemble, usageHint } from './tree.js';

/**
 * The entry point, and (with io.ts) the only module under src/cli that touches the process: it builds the program,
 * parses argv, and turns whatever a command throws into `error: ...` on stderr and an exit code (describeFailure
 * decides which).
 */

/** The root command with the global flags, typed by them (commander's extra typings), before the tree is attached. */
async function rootCommand(deps: Deps) {
  return withMeta(new Command('ctl'), {
    description: 'Administer OpenZiti-style Edge controllers, and run one locally',
    examples: [
      'ctl quickstart',
      'ctl identity create laptop-7 -a sales,emea --jwt-output laptop-7.jwt',
      'ctl identity list -o json | jq .',
    ],
  })
    .addOption(
      completeWith(envFallback(new Option('--profile <name>', 'profile to use'), 'CTL_PROFILE'), { kind: 'profile' }),
    )
    .addOption(envFallback(new Option('-o, --output <format>', 'output format').choices(OUTPUT_FORMATS), 'CTL_OUTPUT'))
    .addOption(new Option('--no-input', 'never prompt: fail with the flag to pass instead'))
    .addOption(new Option('--no-color', 'no colour (also NO_COLOR=1, TERM=dumb)'))
    .addOption(new Option('--debug', 'print stack traces of unexpected errors'))
    .addOption(
      new Option(
        '--timeout <duration>',
        'give up on a controller call after this long, e.g. 10s, 2m (default 30s)',
      ).argParser(milliseconds),
    )
    .addOption(new Option('--verbose', 'print each request to the controller, its status and timing on stderr'))
    .version(await clientVersion(), '-v, --version', "print ctl's version (ctl version also shows the controller's)")
    .helpCommand(false)
    .configureHelp({ showGlobalOptions: true, formatItem })
    .configureOutput({
      writeOut: (text) => void deps.io.stdout.write(text),
      writeErr: (text) => void deps.io.stderr.write(text),
    })
    .showHelpAfterError(usageHint(''))
    .exitOverride()
    .addHelpText('after', `\n${topicsSummary()}`)
    .hook('preAction', async (_root, action) => {
      applyEnvFallbacks(action, deps.env);
      await readStdinFlags(action, deps.io);
    });
}

/** The root command, whose `opts()` are the global flags. */
export type Program = Awaited<ReturnType<typeof rootCommand>>;

/**
 * The root command with the global flags and the tree attached: with `argv`, only the commands it uses are loaded
 * (tree.ts); without, all of them (tests, and anything that walks the whole tree).
 */
export async function buildProgram(deps: Deps, argv?: readonly string[]): Promise<Program> {
  const program = await rootCommand(deps);
  await assemble(program, deps, argv);
  return program;
}

function globalsOf(program: Program): GlobalOptions {
  const o = program.opts();
  // CTL_PROFILE is declared on the option for the help text only: an explicit --profile outranks the CTL_* overrides,
  // the variable does not, so `profile` is the typed flag alone and readers fall back to env.CTL_PROFILE themselves.
  const profile = program.getOptionValueSource('profile') === 'cli' ? o.profile : undefined;
  return {
    profile,
    output: o.output,
    noInput: o.input === false,
    noColor: o.color === false,
    debug: o.debug === true,
    timeoutMs: o.timeout,
    verbose: o.verbose === true,
  };
}

/**
 * The process IO, whose colour and prompting follow --no-color and --no-input. Those flags are parsed after the
 * IO exists (commands receive it when the tree is built), so both are read when used rather than fixed up front.
 */
function processIO(
  env: NodeJS.ProcessEnv,
  globals: () => GlobalOptions,
  running: () => CommandUnknownOpts | undefined,
): IO {
  return createProcessIO({
    env,
    get machineOutput() {
      return globals().output === 'json' || globals().output === 'yaml' || running()?.opts().quiet === true;
    },
    get noColor() {
      return globals().noColor;
    },
    get noInput() {
      return globals().noInput;
    },
  });
}

export interface RunSettings {
  env: NodeJS.ProcessEnv;
  /** Defaults to the process streams; tests pass buffers. */
  io?: IO;
}

/** Runs one command line (the words after `ctl`) and returns its exit code; never throws. */
export async function run(argv: readonly string[], settings: RunSettings): Promise<ExitCode> {
  const { env } = settings;
  let program: Program | undefined;
  let running: CommandUnknownOpts | undefined;
  const globals = () => (program ? globalsOf(program) : {});
  const io = settings.io ?? processIO(env, globals, () => running);
  const pools = connectionPools();
  const deps = createDeps({ io, env, globals, pools });
  try {
    program = await buildProgram(deps, argv);
    program.hook('preAction', (_root, action) => {
      running = action;
    });
    checkCommandPath(program, argv);
    checkArgumentsUtf8(argv);
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // CTL_ERROR_STACK: a bug's stack in the log of a run that cannot be repeated with --debug (a CI job's).
    const failure = describeFailure(err, globals().debug || argv.includes('--debug') || Boolean(env.CTL_ERROR_STACK));
    const lines = formatFailure(failure);
    if (err instanceof UsageError && running) lines.push(usageHint(pathOf(running)));
    for (const line of lines) io.stderr.write(`${line}\n`);
    return failure.exitCode;
  } finally {
    await deps.finish();
    await pools.closeAll();
  }
}

function pathOf(command: CommandUnknownOpts): string {
  const names: string[] = [];
  for (let c: CommandUnknownOpts | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * The process entry point (bin/ctl.js). Signals and closed output end the process (console/process-exit.ts);
 * stdout and stderr are drained before exiting, so that piped output is never cut short.
 */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<never> {
  if (argv.includes('--debug')) process.setSourceMapsEnabled(true);
  endOnSignals();
  endQuietlyOnClosedOutput();
  const code = await run(argv, { env: process.env });
  await Promise.all([drain(process.stdout), drain(process.stderr)]);
  process.exit(code);
}

function drain(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
