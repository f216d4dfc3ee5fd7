import { parseArgs } from 'node:util';
import { CliError } from './client';
import * as commands from './commands';

const HELP = `launchbay: deploy and manage apps on a Launchbay platform from a terminal

Usage:
  launchbay login --url <address> [--key <api key>]   save the platform address and an API key (typed or piped when --key is left out)
  launchbay projects [--json]                           list projects with their status and address
  launchbay deploy <project> [--branch b] [--commit sha] [--environment e] [--no-follow] [--json]
                                                        deploy and follow the log; exits 0 only when the deployment is live
  launchbay logs <project> [--deployment id] [-f]       the build and runtime log (-f follows it)
  launchbay rollback <project> [deployment id] [--json] serve an earlier deployment again (default: the one before the live one)
  launchbay env pull <project> [--environment e] [--file .env]   write the env vars to a .env file (--file - prints them)
  launchbay env push <project> [--environment e] [--file .env]   set the env vars of a .env file
  launchbay open <project> [--environment e] [--print]  open (or print) the app's address

Projects are named by slug or id. LAUNCHBAY_URL and LAUNCHBAY_API_KEY override the saved login.`;

const OPTIONS = {
  url: { type: 'string' },
  key: { type: 'string' },
  json: { type: 'boolean' },
  branch: { type: 'string' },
  commit: { type: 'string' },
  environment: { type: 'string', short: 'e' },
  deployment: { type: 'string' },
  follow: { type: 'boolean', short: 'f' },
  'no-follow': { type: 'boolean' },
  file: { type: 'string' },
  print: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

async function readKeyFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    process.stderr.write('API key (create one in the console under API Keys): ');
    // Not echoed: raw mode, collected until Enter.
    return new Promise((resolve) => {
      let typed = '';
      process.stdin.setRawMode(true);
      process.stdin.resume();
      process.stdin.on('data', function onData(chunk: Buffer) {
        for (const char of chunk.toString('utf8')) {
          if (char === '\r' || char === '\n') {
            process.stdin.setRawMode(false);
            process.stdin.pause();
            process.stdin.off('data', onData);
            process.stderr.write('\n');
            return resolve(typed);
          }
          if (char === '\u0003') process.exit(130);
          typed = char === '\u007f' ? typed.slice(0, -1) : typed + char;
        }
      });
    });
  }
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.split('\n')[0] ?? '';
}

/** Runs one command line; answers the exit code. */
export async function main(argv: string[], io?: Partial<commands.Io>): Promise<number> {
  const context: commands.Io = {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    readKey: readKeyFromStdin,
    isTty: Boolean(process.stdout.isTTY),
    ...io,
  };
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    context.err(`launchbay: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command || command === 'help') {
    context.out(HELP);
    return command || values.help ? 0 : 2;
  }
  try {
    switch (command) {
      case 'login':
        return await commands.login(context, { url: values.url, key: values.key });
      case 'projects':
        return await commands.projects(context, { json: values.json });
      case 'deploy':
        return await commands.deploy(context, rest[0], {
          branch: values.branch,
          commit: values.commit,
          environment: values.environment,
          json: values.json,
          follow: !values['no-follow'],
        });
      case 'logs':
        return await commands.logs(context, rest[0], { deployment: values.deployment, follow: values.follow });
      case 'rollback':
        return await commands.rollback(context, rest[0], rest[1], { json: values.json });
      case 'env':
        if (rest[0] === 'pull')
          return await commands.envPull(context, rest[1], { environment: values.environment, file: values.file });
        if (rest[0] === 'push')
          return await commands.envPush(context, rest[1], { environment: values.environment, file: values.file });
        context.err('launchbay env: say `pull` or `push` (launchbay env pull <project>)');
        return 2;
      case 'open':
        return await commands.open(context, rest[0], { print: values.print, environment: values.environment });
      default:
        context.err(`launchbay: unknown command "${command}"\n\n${HELP}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof CliError) {
      context.err(`launchbay: ${error.message}`);
      return error.exitCode;
    }
    context.err(`launchbay: ${(error as Error).stack ?? String(error)}`);
    return 1;
  }
}
