#!/usr/bin/env bash
# The hunt step of the dstreplay hunt action (action.yml), which CI here
# runs too (internal/cli's TestHuntAction). Inputs come in DST_HUNT_*
# variables; it exits as dstreplay hunt does: 0 nothing found, 1 a failure
# found (annotated, summarised, its traces saved under testdata/dst), 2 the
# hunt could not run or hunted nothing.
set -euo pipefail

packages=${DST_HUNT_PACKAGES:-./...}
budget=${DST_HUNT_TIME:-5m}
corpus=${DST_HUNT_CORPUS:-${RUNNER_TEMP:-/tmp}/dst-corpus}

if [ -n "${DST_HUNT_DSTREPLAY:-}" ]; then
  read -r -a tool <<< "$DST_HUNT_DSTREPLAY"
elif go tool -n dstreplay >/dev/null 2>&1; then
  tool=(go tool dstreplay)
else
  tool=(go run github.com/dstgo/dst/cmd/dstreplay@latest)
fi

args=(hunt -github -time "$budget" -corpus "$corpus")
case "${DST_HUNT_WRAP:-false}" in
  true) args+=(-wrap) ;;
  false | "") ;;
  *) echo "dstreplay hunt action: wrap is \"$DST_HUNT_WRAP\": want true or false" >&2; exit 2 ;;
esac
case "${DST_HUNT_RACE:-false}" in
  true) args+=(-race) ;;
  false | "") ;;
  *) echo "dstreplay hunt action: race is \"$DST_HUNT_RACE\": want true or false" >&2; exit 2 ;;
esac
if [ -n "${DST_HUNT_RUN:-}" ]; then
  args+=(-run "$DST_HUNT_RUN")
fi
if [ -n "${DST_HUNT_ARGS:-}" ]; then
  read -r -a extra <<< "$DST_HUNT_ARGS"
  args+=("${extra[@]}")
fi
read -r -a pkgs <<< "$packages"

mkdir -p "$corpus"
echo "${tool[*]} ${args[*]} ${pkgs[*]}"
set +e
"${tool[@]}" "${args[@]}" "${pkgs[@]}"
code=$?
set -e
if [ "$code" -ne 0 ] && [ "$code" -ne 1 ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  # The hunt could not run (a build error, no test, nothing hunted): say
  # so in the summary too, where the reader of the run looks first.
  printf '## dstreplay hunt: did not hunt (exit %d)\n\nSee the step'"'"'s log.\n' "$code" >> "$GITHUB_STEP_SUMMARY"
fi
exit "$code"
