#!/bin/sh
# Replays every committed crash input of one fuzz target once: replay.sh FUZZER DIR [FLAGS...].
# libFuzzer given files (not directories) runs each and exits; a finding fails the test.
fuzzer=$1
dir=$2
shift 2
files=$(find "$dir" -type f ! -name '*.md' 2>/dev/null | sort)
if [ -z "$files" ]; then
  echo "no regression inputs in $dir"
  exit 0
fi
# shellcheck disable=SC2086  # file names are hashes, without spaces
exec "$fuzzer" "$@" $files
