#!/usr/bin/env bash
# The GitHub Action (action.yml at the repository root): installs the release binary and runs
# `check` or `diff` as its inputs say. Inputs come as the environment action.yml sets
# (INPUT_COMMAND, INPUT_FORMAT, INPUT_ARGS, INPUT_VERSION, INPUT_BINARY, INPUT_COMMENT,
# INPUT_WORKING_DIRECTORY); GitHub's own variables say where (GITHUB_PATH, GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY, GITHUB_BASE_REF, GITHUB_EVENT_NAME, GITHUB_ACTION_REPOSITORY).
# Outputs: `report` (the SARIF or Markdown file written) and `exit-code` (the command's). The
# script exits with the command's exit code, so the job fails as `check`/`diff` say it should.
#   scripts/github-action.sh            (run by action.yml; tests/action/run.sh runs it too)
set -uo pipefail
say() { printf 'salt-analyzer action: %s\n' "$*" >&2; }
die() { say "$*"; exit 2; }
output() { [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; return 0; }

command=${INPUT_COMMAND:-check}
format=${INPUT_FORMAT:-}
args=${INPUT_ARGS:-}
version=${INPUT_VERSION:-}
binary=${INPUT_BINARY:-}
comment=${INPUT_COMMENT:-true}
workdir=${INPUT_WORKING_DIRECTORY:-.}
case $command in
  check) format=${format:-sarif}; case $format in sarif|github|gitlab|json|text) ;; *) die "check has no format '$format' (sarif, github, gitlab, json, text)" ;; esac ;;
  diff) format=${format:-markdown}; case $format in markdown|json|text) ;; *) die "diff has no format '$format' (markdown, json, text)" ;; esac ;;
  *) die "command must be check or diff, not '$command'" ;;
esac

# The binary: the one given, else the release of `version` (default: the tag the action was
# used at, `uses: salt-analyzer/salt-analyzer@v0.1.0`), unpacked under RUNNER_TEMP.
if [ -n "$binary" ]; then
  [ -x "$binary" ] || die "binary '$binary' is not an executable file"
  bin=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
else
  if [ -z "$version" ]; then
    version=${GITHUB_ACTION_REF:-}
  fi
  version=${version#v}
  case $version in [0-9]*.[0-9]*.[0-9]*) ;; *) die "no release version: give 'version: 0.1.0' (the action was used at '${GITHUB_ACTION_REF:-}'), or 'binary:'" ;; esac
  case $(uname -sm) in "Linux x86_64") target=x86_64-unknown-linux-gnu ;; *) die "no release binary for $(uname -sm): build it (cargo install --locked --path server/analyzer) and give 'binary:'" ;; esac
  base=${SALT_ANALYZER_RELEASES_URL:-https://github.com/${GITHUB_ACTION_REPOSITORY:-salt-analyzer/salt-analyzer}/releases/download}
  name=salt-analyzer-$version-$target
  dest=${RUNNER_TEMP:-/tmp}/salt-analyzer-action
  mkdir -p "$dest"
  say "installing $base/v$version/$name.tar.gz"
  curl --fail --silent --show-error --location "$base/v$version/$name.tar.gz" -o "$dest/$name.tar.gz" || die "cannot download $name.tar.gz"
  tar -xzf "$dest/$name.tar.gz" -C "$dest" || die "cannot unpack $name.tar.gz"
  bin=$dest/$name/salt-analyzer
  [ -x "$bin" ] || die "$name.tar.gz has no salt-analyzer binary"
  [ -n "${GITHUB_PATH:-}" ] && dirname "$bin" >> "$GITHUB_PATH"
fi
say "$("$bin" --version 2>&1)"
cd "$workdir" || die "no working directory '$workdir'"

# `args` is split into words as xargs splits them (blanks separate, quotes group), never
# evaluated.
extra=()
if [ -n "$args" ]; then
  mapfile -d '' -t extra < <(printf '%s' "$args" | xargs -r printf '%s\0') || die "cannot split args: $args"
fi

if [ "$command" = check ]; then
  case $format in
    sarif) report=salt-analyzer.sarif ;;
    gitlab) report=gl-code-quality.json ;;
    json) report=salt-analyzer.json ;;
    *) report= ;;
  esac
  if [ -n "$report" ]; then
    "$bin" check --format "$format" "${extra[@]}" > "$report"
    status=$?
  else
    "$bin" check --format "$format" "${extra[@]}"
    status=$?
  fi
else
  from=()
  if ! printf '%s\n' "${extra[@]}" | grep -qx -- '--from\|--from=.*\|--to\|--to=.*'; then
    if [ -n "${GITHUB_BASE_REF:-}" ]; then
      # A pull request: what it changes, from the merge base with its target branch.
      git rev-parse --verify --quiet "origin/$GITHUB_BASE_REF" >/dev/null || git fetch --quiet origin "$GITHUB_BASE_REF:refs/remotes/origin/$GITHUB_BASE_REF" ||
        die "cannot fetch origin/$GITHUB_BASE_REF (check out with fetch-depth: 0)"
      from=(--from "origin/$GITHUB_BASE_REF...HEAD")
    elif [ -n "${INPUT_BEFORE:-}" ] && [ "${INPUT_BEFORE}" != 0000000000000000000000000000000000000000 ]; then
      from=(--from "$INPUT_BEFORE..HEAD")
    else
      from=(--from "HEAD~1..HEAD")
    fi
  fi
  ext=md
  [ "$format" = json ] && ext=json
  [ "$format" = text ] && ext=txt
  report=salt-analyzer-diff.$ext
  "$bin" diff "${from[@]}" --format "$format" "${extra[@]}" > "$report"
  status=$?
  if [ "$format" = markdown ]; then
    [ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$report" >> "$GITHUB_STEP_SUMMARY"
    pr=${INPUT_PR_NUMBER:-}
    if [ "$comment" = true ] && [ -n "$pr" ]; then
      if command -v gh >/dev/null; then
        gh pr comment "$pr" --body-file "$report" || say "could not comment on pull request #$pr (permissions: pull-requests: write)"
      else
        say "gh is not installed: no comment on pull request #$pr"
      fi
    fi
  fi
fi
output report "${report:+$PWD/$report}"
output exit-code "$status"
say "$command exited $status${report:+; the report is $report}"
exit "$status"
