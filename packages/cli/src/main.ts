#!/usr/bin/env node
import { createInterface } from 'node:readline';
import { Command, InvalidArgumentError, Option } from 'commander';
import { apiUrlOf } from './api-url.js';
import { DashboardSession } from './dashboard-session.js';
import { listen } from './listen.js';
import { TRIGGERABLE_EVENTS, trigger } from './trigger.js';
import type { TriggerableEvent } from './trigger.js';

/** Asks for the password on the terminal, without echoing it. */
function askPassword(email: string): Promise<string> {
  if (!process.stdin.isTTY) return Promise.reject(new Error('Give the password in FEEDBACK_PASSWORD: standard input is not a terminal.'));
  const prompt = `Password for ${email}: `;
  const terminal = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  // Echo nothing but the prompt while the password is typed.
  (terminal as unknown as { _writeToOutput: (text: string) => void })._writeToOutput = (text) => {
    if (text.startsWith(prompt)) process.stdout.write(prompt);
  };
  return new Promise((resolve) =>
    terminal.question(prompt, (answer) => {
      terminal.close();
      process.stdout.write('\n');
      resolve(answer);
    }),
  );
}

interface Common {
  app: number;
  apiUrl: string;
  email?: string;
}

async function signIn(options: Common): Promise<DashboardSession> {
  const token = process.env['FEEDBACK_TOKEN'];
  if (token) return DashboardSession.start({ apiUrl: options.apiUrl, token });
  const email = options.email ?? process.env['FEEDBACK_EMAIL'];
  if (!email) throw new Error('Sign in: give --email (or FEEDBACK_EMAIL), or a session token in FEEDBACK_TOKEN.');
  const password = process.env['FEEDBACK_PASSWORD'] ?? (await askPassword(email));
  return DashboardSession.start({ apiUrl: options.apiUrl, email, password });
}

const appId = (value: string) => {
  if (!/^[1-9][0-9]{0,9}$/.test(value)) throw new InvalidArgumentError('an app id is a positive whole number.');
  return Number(value);
};

const common = (command: Command) =>
  command
    .requiredOption('--app <id>', 'the app whose events these are', appId)
    .addOption(new Option('--api-url <url>', "the service's base address: https, or http on this machine").env('FEEDBACK_API_URL').default('http://127.0.0.1:3000').argParser(apiUrlOf))
    .option('--email <email>', 'sign in as this Owner or Admin (FEEDBACK_EMAIL; the password from FEEDBACK_PASSWORD, or asked)');

const program = new Command('feedback').description('Work with the Feedback platform from your machine.').showHelpAfterError();

common(
  program
    .command('listen')
    .description("Receive the app's webhooks on this machine, without any inbound connection, and forward each to a local address.")
    .requiredOption('--forward-to <url>', 'where each request goes, unchanged (http or https, on this machine)', (value) => new URL(value))
    .option('--events <names>', 'the events to receive, separated by commas (default: all but webhook.ping)', (value) => value.split(',').map((name) => name.trim()).filter(Boolean), []),
).action(async (options: Common & { forwardTo: URL; events: string[] }) => {
  const session = await signIn(options);
  const listener = listen({ apiUrl: options.apiUrl, appId: options.app, forwardTo: options.forwardTo, events: options.events, session });
  const stop = () => listener.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const ready = await listener.ready;
    process.stdout.write(
      [
        `Ready. Forwarding app ${options.app}'s ${ready.events.join(', ')} to ${options.forwardTo.href}`,
        `Signing secret of this session: ${ready.signingSecret}`,
        '(verify each request with it, exactly as in production; a new one each session)',
        `Session ${ready.endpointId}: its history is the delivery history of this endpoint id. Ctrl-C ends it.`,
        '',
      ].join('\n'),
    );
  } catch (error) {
    session.stop();
    throw error;
  }
  const { code, reason } = await listener.closed;
  session.stop();
  if (code !== 1000) throw new Error(`The connection to the service closed (${code}${reason ? ` ${reason}` : ''}); run feedback listen again for a new session.`);
  process.stdout.write('Session ended: nothing more is sent to it.\n');
});

common(
  program
    .command('trigger')
    .description('Make an event fire for the app, with a sample record, as a user or a member would.')
    .argument('<event>', `one of: ${TRIGGERABLE_EVENTS.join(', ')}`, (value) => {
      if (!(TRIGGERABLE_EVENTS as readonly string[]).includes(value)) throw new InvalidArgumentError(`one of: ${TRIGGERABLE_EVENTS.join(', ')}.`);
      return value as TriggerableEvent;
    }),
).action(async (event: TriggerableEvent, options: Common) => {
  const session = await signIn(options);
  try {
    const made = await trigger({ apiUrl: options.apiUrl, appId: options.app, token: session.token }, event);
    process.stdout.write(`Made ${made}: ${event} fires.\n`);
  } finally {
    session.stop();
  }
});

program.parseAsync().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
