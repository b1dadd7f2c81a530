/** How the receiver tells an end user something: your email or push service goes here. */
export interface Notifier {
  notify(externalId: string, message: string): Promise<void>;
}

/** Writes each notification as a JSON line on standard output: the example's stand-in for email or push. */
export class StdoutNotifier implements Notifier {
  async notify(externalId: string, message: string): Promise<void> {
    process.stdout.write(`${JSON.stringify({ notify: externalId, message })}\n`);
  }
}
