#!/bin/sh
. "$srcdir/tests/tap.sh"
skip todo todo
done_testing
