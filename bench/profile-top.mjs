// The top self-time entries of V8 CPU profiles (node --cpu-prof), by function and by package or
// file: where a process's CPU went. Several profiles are summed.
//
//   node bench/profile-top.mjs /tmp/api-prof/*.cpuprofile            (top 30 of each)
//   BENCH_TOP=50 node bench/profile-top.mjs profile.cpuprofile
//   BENCH_LAST_SECONDS=10 node bench/profile-top.mjs ...      (only the profile's last 10 s: the load, not the start-up)
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node bench/profile-top.mjs <file.cpuprofile>...');
  process.exit(64);
}
const top = Number(process.env.BENCH_TOP ?? 30);
const lastSeconds = Number(process.env.BENCH_LAST_SECONDS ?? Infinity);

/** "pnpm package" for a file under node_modules, "services/api" for our own, else the file. */
function placeOf(url) {
  if (!url) return '(native or V8)';
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = path.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const ours = /\/(services\/[^/]+|packages\/[^/]+)\//.exec(path);
  if (ours) return ours[1];
  if (path.startsWith('node:')) return path;
  return path;
}

const byFunction = new Map();
const byPlace = new Map();
let total = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map();
  // Each sample is charged the time until the next one.
  const endUs = profile.endTime - profile.startTime;
  let atUs = 0;
  for (let n = 0; n < profile.samples.length; n += 1) {
    const id = profile.samples[n];
    atUs += profile.timeDeltas[n] ?? 0;
    if (endUs - atUs > lastSeconds * 1e6) continue;
    const delta = profile.timeDeltas[n + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  }
  for (const [id, us] of selfUs) {
    const { callFrame } = nodes.get(id);
    if (callFrame.functionName === '(idle)') continue;
    total += us;
    const file = callFrame.url ? callFrame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(services|packages)\//, '$1/') : '';
    const name = `${callFrame.functionName || '(anonymous)'} ${file}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const place = callFrame.url ? placeOf(callFrame.url) : callFrame.functionName.startsWith('(') ? callFrame.functionName : '(native or V8)';
    byPlace.set(place, (byPlace.get(place) ?? 0) + us);
  }
}

const print = (title, entries) => {
  console.log(`\n${title} (busy time ${(total / 1e6).toFixed(2)} s, idle left out)`);
  const rows = [...entries].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, us] of rows) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
};
print('self time by function', byFunction);
print('self time by package or file', byPlace);
