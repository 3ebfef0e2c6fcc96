#!/usr/bin/env bash
# Run the import check and the test suite under every pyenv Python 3.11/3.12/3.13 installed.
#
#   scripts/test-versions.sh            # import check + full test suite per version
#   scripts/test-versions.sh --import   # import check only
#
# Each version gets its own virtual environment, .venv-3.X, created on first use.
# Versions that pyenv does not have are skipped. Exit status is nonzero if any check failed.
set -u
cd "$(dirname "$0")/.."

import_only=0
[ "${1:-}" = "--import" ] && import_only=1

root="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"
failed=()
for minor in 3.11 3.12 3.13; do
    python=""
    for candidate in "$root"/versions/"$minor".*/bin/python"$minor"; do
        [ -x "$candidate" ] && python="$candidate"
    done
    if [ -z "$python" ]; then
        echo "== Python $minor: not installed, skipped"
        continue
    fi
    venv=".venv-$minor"
    echo "== Python $minor ($python) in $venv"
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv" || { failed+=("$minor venv"); continue; }
    fi
    if [ ! -f "$venv/.installed" ] || [ pyproject.toml -nt "$venv/.installed" ]; then
        "$venv/bin/pip" install -q -e '.[dev]' && touch "$venv/.installed" \
            || { failed+=("$minor install"); continue; }
    fi
    if "$venv/bin/python" -W error::DeprecationWarning -c 'import srcad'; then
        echo "   import srcad with -W error::DeprecationWarning: ok"
    else
        failed+=("$minor import")
    fi
    if [ "$import_only" = 0 ]; then
        "$venv/bin/python" -m pytest -q || failed+=("$minor tests")
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
echo "all checks passed"
