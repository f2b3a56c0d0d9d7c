#!/bin/sh
# tests/doc-guide.sh: the screens shown in README.md, doc/guide.md and
# doc/tui.md are still what gptop shows.  doc/screens.sh --check replays
# the guide's walkthrough in tmux and compares each screen, with times,
# rates and bars masked (see that script); TAP.
# Environment (set by make check): top_srcdir, GPTOP.
: "${top_srcdir:=.}"
: "${GPTOP:=./gptop}"
export top_srcdir GPTOP
exec sh "$top_srcdir/doc/screens.sh" --check
