import { InvalidArgumentError } from 'commander';

/**
 * The service's address. Plain http carries the password and the session token in the clear, so
 * it is taken only for this machine, where a local system started by run.sh listens.
 */
export const apiUrlOf = (value: string) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('give the address as a URL, such as https://feedback.example.com.');
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && local)) return value;
  throw new InvalidArgumentError('use https: plain http would send your password and session token in the clear (http is taken for localhost only).');
};
