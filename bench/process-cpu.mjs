// CPU time by process group, read from /proc (Linux only; elsewhere the benchmark prints none):
// where the machine's cores go during a benchmark phase, the broker and database included.
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on

function processTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command; cutime and
    // cstime (16 and 17) are those of its children that ended and were waited for.
    const own = Number(fields[11]) + Number(fields[12]);
    return { command, own, children: Number(fields[13]) + Number(fields[14]) };
  } catch {
    return undefined; // gone meanwhile
  }
}

/**
 * groups: name -> pids known to the benchmark (its workers, its receiver, itself). Every other
 * process is grouped by command: postgres, the broker's Erlang VM, the rest.
 */
export function cpuSnapshot(groups) {
  if (process.platform !== 'linux') return undefined;
  const known = new Map();
  for (const [name, pids] of Object.entries(groups)) for (const pid of pids) known.set(pid, name);
  const totals = {};
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const sample = processTicks(pid);
    if (!sample) continue;
    const group = known.get(pid) ?? (sample.command === 'postgres' ? 'postgres' : sample.command === 'beam.smp' ? 'rabbitmq' : 'other');
    // A PostgreSQL backend that ends during a phase (a pool closing an idle connection) takes its
    // time out of the live processes' sum and into the server's children time: counting both
    // keeps the group's total from falling.
    const ticks = group === 'postgres' ? sample.own + sample.children : sample.own;
    totals[group] = (totals[group] ?? 0) + ticks;
  }
  return totals;
}

/** "worker 0.41, postgres 0.22, ..." in ms of CPU per unit of work (a delivery), busiest first. */
export function cpuPerUnit(before, after, units) {
  if (!before || !after) return 'n/a (no /proc)';
  const spent = Object.keys(after)
    .map((group) => [group, ((after[group] - (before[group] ?? 0)) * 1000) / TICKS_PER_SECOND / units])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = spent.reduce((sum, [, ms]) => sum + ms, 0);
  return `${spent.map(([group, ms]) => `${group} ${ms.toFixed(3)}`).join(', ')}; total ${total.toFixed(3)} ms`;
}

/** The machine's CPU time so far, from /proc/stat's first line: busy, and stolen by the hypervisor. */
export function machineSnapshot() {
  if (process.platform !== 'linux') return undefined;
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map(Number);
  return { busy: user + nice + system + irq + softirq, waiting: idle + iowait, steal };
}

/** "busy N% of the cores' time, M% stolen by the hypervisor": what the machine did between two snapshots. */
export function machineShare(before, after) {
  if (!before || !after) return 'n/a (no /proc)';
  const busy = after.busy - before.busy;
  const steal = after.steal - before.steal;
  const all = busy + steal + (after.waiting - before.waiting);
  const percent = (part) => `${Math.round((100 * part) / all)}%`;
  return `busy ${percent(busy)} of the cores' time, ${percent(steal)} stolen by the hypervisor`;
}
