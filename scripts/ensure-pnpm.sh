# Sourced by run.sh and test.sh: installs the pnpm version package.json pins, if it is missing.
required=$(node -p "require('./package.json').packageManager.split('@')[1]")
if [ "$(pnpm --version 2>/dev/null)" != "$required" ]; then
  echo "Installing pnpm $required"
  npm install --global --no-fund --no-audit "pnpm@$required" >/dev/null
fi
