// Run before a published package is published (its `prepublishOnly`). Its dependencies on the
// other published packages are `workspace:*`, which `pnpm publish` turns into their versions and
// `npm publish` would ship as they are, so that no one outside this repository could install it.
const agent = process.env.npm_config_user_agent ?? '';
if (!agent.startsWith('pnpm/')) {
  console.error(`Publish with pnpm (pnpm publish, or pnpm -r publish from the repository root), not ${agent.split(' ')[0] || 'this tool'}: only pnpm replaces the workspace: versions of this package's dependencies.`);
  process.exit(1);
}
